/**
 * The IPC channels (Electron): one for calls, one for pushed events. The sandboxed preload checks its copies against
 * these.
 */
export const IPC_INVOKE = 'witness:invoke';
export const IPC_EVENT = 'witness:event';
