/**
 * The importer's row encoding (issue 32): rows go to the target as one text array per column, each
 * value as the text its column's type reads. What JSON carried before must arrive the same.
 */
import { describe, expect, it } from 'vitest';
import { textOf } from '../../src/import/engine.js';

describe('textOf: a value as the text its column type reads', () => {
  it('keeps null, text, numbers and booleans as JSON would have carried them', () => {
    expect(textOf(null, 'text')).toBeNull();
    expect(textOf(undefined, 'bigint')).toBeNull();
    expect(textOf('Zoë 🙂 "quoted" \\ back\nslash', 'text')).toBe('Zoë 🙂 "quoted" \\ back\nslash');
    expect(textOf('1020', 'bigint')).toBe('1020');
    expect(textOf(3600, 'integer')).toBe('3600');
    expect(textOf(true, 'boolean')).toBe('true');
    // JSON wrote null for these; so does the array.
    expect(textOf(Number.NaN, 'integer')).toBeNull();
    expect(textOf(Number.POSITIVE_INFINITY, 'integer')).toBeNull();
  });

  it('writes instants as ISO-8601 in UTC, an invalid date as null', () => {
    expect(textOf(new Date('2021-04-01T08:00:00.123Z'), 'timestamptz')).toBe('2021-04-01T08:00:00.123Z');
    expect(textOf(new Date(Number.NaN), 'timestamptz')).toBeNull();
  });

  it('writes json and jsonb values as JSON text, scalars included', () => {
    expect(textOf({ ключ: 'значение', n: null, q: 'a "b" \\c' }, 'jsonb')).toBe('{"ключ":"значение","n":null,"q":"a \\"b\\" \\\\c"}');
    expect(textOf('just a string', 'jsonb')).toBe('"just a string"');
    expect(textOf(42, 'json')).toBe('42');
    expect(textOf([1, 'a'], 'jsonb')).toBe('[1,"a"]');
  });

  it('writes arrays of array columns as array literals, quotes, backslashes, braces and NULL kept', () => {
    expect(textOf([], 'text[]')).toBe('{}');
    expect(textOf(['password', 'refresh_token'], 'text[]')).toBe('{"password","refresh_token"}');
    expect(textOf(['a "b"', 'c\\d', '{e,f}', null, 'NULL'], 'text[]')).toBe('{"a \\"b\\"","c\\\\d","{e,f}",NULL,"NULL"}');
  });
});
