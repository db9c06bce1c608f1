/**
 * What an API call's parameters must be before anything walks them, whatever the transport brought
 * them (IPC's structured clone, the WebSocket's JSON): nested no deeper than MAX_JSON_DEPTH, by the
 * one nesting check for values from outside (core/input/json.ts).
 */
export { TOO_DEEP, valueTooDeep } from '../core/input/json.js';
