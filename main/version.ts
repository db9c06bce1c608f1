/** The software version, recorded in outputs and (later) in every audit run. */
export const VERSION = '0.1.0';
