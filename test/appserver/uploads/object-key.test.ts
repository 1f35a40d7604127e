/** The object key as RADAR-Appserver v2.4.5's `StoragePath` builds it (its StoragePathTest's cases), in UTC. */
import { describe, expect, it } from 'vitest';
import { fileExtension, objectKey, type ObjectKeyParts } from '../../../src/appserver/uploads/object-key.js';

const UUID = '0f8fad5b-d9cb-469f-a165-70867728950e';
const parts = (overrides: Partial<ObjectKeyParts> = {}): ObjectKeyParts => ({
  prefix: 'prefix', projectId: 'project', subjectId: 'subject', topicId: 'topic', collectPerDay: true,
  filename: 'example.txt', now: new Date('2024-03-09T23:59:58.999Z'), uuid: UUID, ...overrides,
});

describe('objectKey', () => {
  it('is prefix/project/subject/topic/day/timestamp_uuid.ext', () => {
    expect(objectKey(parts())).toBe(`prefix/project/subject/topic/20240309/20240309235958_${UUID}.txt`);
  });

  it('leaves out the day folder when not collecting per day', () => {
    expect(objectKey(parts({ collectPerDay: false }))).toBe(`prefix/project/subject/topic/20240309235958_${UUID}.txt`);
  });

  it('leaves out a blank prefix, and trims its slashes', () => {
    expect(objectKey(parts({ prefix: '' }))).toBe(`project/subject/topic/20240309/20240309235958_${UUID}.txt`);
    expect(objectKey(parts({ prefix: '  ' }))).toBe(`project/subject/topic/20240309/20240309235958_${UUID}.txt`);
    expect(objectKey(parts({ prefix: '/a/b/' }))).toBe(`a/b/project/subject/topic/20240309/20240309235958_${UUID}.txt`);
  });

  it('writes the time in UTC, zero-padded', () => {
    expect(objectKey(parts({ now: new Date('2031-01-02T03:04:05+05:00'), collectPerDay: true, prefix: '' })))
      .toBe(`project/subject/topic/20310101/20310101220405_${UUID}.txt`);
  });
});

describe('fileExtension', () => {
  it('keeps the last extension only, lower-cased', () => {
    expect(fileExtension('example.TXT')).toBe('.txt');
    expect(fileExtension('archive.tar.GZ')).toBe('.gz');
    expect(fileExtension('photo.JPEG')).toBe('.jpeg');
  });

  it('is none without a dot, and for a name ending in one', () => {
    expect(fileExtension('README')).toBe('');
    expect(fileExtension('name.')).toBe('');
  });

  it('leaves out an extension that is no plain word (a path, spaces, control characters)', () => {
    expect(fileExtension('a.b/c')).toBe('');
    expect(fileExtension('a.tx t')).toBe('');
    expect(fileExtension('a.t\nx')).toBe('');
    expect(fileExtension(`a.${'x'.repeat(33)}`)).toBe('');
  });
});
