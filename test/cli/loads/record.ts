/** `node --import <this file> …`: records every module the process loads (hooks.ts says where). */
import { register } from 'node:module';

register('./hooks.js', import.meta.url);
