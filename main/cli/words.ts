/** Label words on the command line: letters separated by ';', propositions in a letter by ','. */
import { CliError } from './errors.js';

const NAME = /^[A-Za-z0-9_.:-]+$/;

export function parseWord(text: string, flag: string): ReadonlySet<string>[] {
  if (text.trim() === '') return [];
  return text.split(';').map((letter, i) => {
    const body = letter.trim().replace(/^\{(.*)\}$/, '$1').trim();
    if (body === '') return new Set<string>();
    const names = body.split(',').map((s) => s.trim());
    for (const n of names) {
      if (!NAME.test(n)) throw new CliError(`${flag}: letter ${i + 1}: '${n}' is not a proposition name (letters are separated by ';', propositions by ',')`);
    }
    return new Set(names);
  });
}

export function showLetter(l: ReadonlySet<string>): string {
  return `{${[...l].join(',')}}`;
}
