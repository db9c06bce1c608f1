/**
 * How a models choice reads in the narrow list: the world's own shipped bundle as "shipped
 * (navigate)", a regime's (`<world>-<regime>`) as "shipped (<regime>)", a workspace one by its
 * name; the option's title is always the full id.
 */
export function modelsLabel(world: string, id: string): string {
  if (id === world) return 'shipped (navigate)';
  if (id.startsWith(`${world}-`) && !id.includes('/')) return `shipped (${id.slice(world.length + 1)})`;
  return id;
}
