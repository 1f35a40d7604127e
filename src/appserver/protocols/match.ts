/**
 * Which protocol file serves whom (R2, R3; issue 20 item 4). Paths are
 * `{projectId}/{file}` for a project and `{projectId}/k1/v1[/k2/v2…]/{file}` for the users whose
 * attributes hold every one of those pairs; a user gets the matching path with the most pairs.
 */

export interface ProtocolPath {
  path: string;
  projectId: string;
  /** The attribute pairs the path requires, in path order. */
  pairs: readonly (readonly [string, string])[];
}

/** The parts of a protocol file's path, or undefined for a path of another shape (no project, a key without value). */
export function parseProtocolPath(path: string, fileName: string): ProtocolPath | undefined {
  const segments = path.split('/');
  if (segments.length < 2 || segments.at(-1) !== fileName || segments.some((s) => s === '')) return undefined;
  const [projectId, ...rest] = segments.slice(0, -1);
  if (rest.length % 2 !== 0) return undefined;
  const pairs: (readonly [string, string])[] = [];
  for (let i = 0; i < rest.length; i += 2) pairs.push([rest[i]!, rest[i + 1]!]);
  return { path, projectId: projectId!, pairs };
}

/**
 * The protocol of a user of `projectId` with `attributes`: the path of that project whose pairs
 * all equal the user's attributes, with the most pairs (ties: the first path in code-point
 * order), so `{projectId}/{file}` when no attribute path matches.
 * Reference bugs fixed: the project was matched as a substring of the path, and the path was
 * rebuilt from a HashMap's order.
 */
export function chooseProtocol<P extends ProtocolPath>(paths: Iterable<P>, projectId: string, attributes: Readonly<Record<string, string>>): P | undefined {
  let best: P | undefined;
  for (const candidate of paths) {
    if (candidate.projectId !== projectId) continue;
    if (!candidate.pairs.every(([key, value]) => Object.hasOwn(attributes, key) && attributes[key] === value)) continue;
    if (!best || candidate.pairs.length > best.pairs.length || (candidate.pairs.length === best.pairs.length && candidate.path < best.path)) {
      best = candidate;
    }
  }
  return best;
}
