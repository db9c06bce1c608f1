/**
 * The software version (package.json "version"; a test keeps the two equal), recorded in outputs and in every audit
 * run.
 */
export const VERSION = '0.1.0';
