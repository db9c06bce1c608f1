/**
 * TEST CODE — a module-resolution hook (node:module register) for a `witness` child process: the
 * package `rclnodejs` resolves to the stand-in (standin.ts), so the real loader
 * (main/backends/ros2/rclnodejs-loader.ts) imports it exactly as it imports rclnodejs on a lab PC.
 */
type Resolve = (specifier: string, context: unknown) => Promise<{ url: string; shortCircuit?: boolean }>;

export async function resolve(
  specifier: string,
  context: unknown,
  next: Resolve,
): Promise<{ url: string; shortCircuit?: boolean }> {
  if (specifier === 'rclnodejs') return { url: new URL('./standin.js', import.meta.url).href, shortCircuit: true };
  return next(specifier, context);
}
