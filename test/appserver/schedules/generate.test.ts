/** The pure schedule generator (§6.3): windows, calendar steps in zones, and each reference defect it fixes. */
import { describe, expect, it } from 'vitest';
import { DEFAULT_TEXTS, generateSchedule, taskKey, type ScheduleUser } from '../../../src/appserver/schedules/generate.js';
import { aProtocol, anAssessment } from '../../fixtures/protocols.js';

const H = 3_600_000;
const D = 24 * H;
const at = (iso: string) => Date.parse(iso);
const iso = (ms: number) => new Date(ms).toISOString();
const user = (overrides: Partial<ScheduleUser> = {}): ScheduleUser => ({
  timezone: 'Europe/London', enrolmentDate: new Date('2026-01-10T12:00:00Z'), language: 'en', seed: 'u1', ...overrides,
});
const one = (name: string, protocol: Record<string, unknown> = {}, extra: Record<string, unknown> = {}) => aProtocol([anAssessment(name, { ...extra, protocol })]);

describe('window and repeats', () => {
  it('repeats from the first at or after now − 7 d to before now + 7 d, a task per unitsFromZero', () => {
    const now = at('2026-06-15T12:00:00Z');
    const { tasks } = generateSchedule(one('A', { repeatQuestionnaire: { unit: 'hour', unitsFromZero: [9, 20] } }), user(), { now });
    // Repeats are local midnights (BST: 23:00Z) from 2026-06-08T23:00Z (first ≥ 06-08T12:00Z) to 06-21T23:00Z.
    expect(tasks.map((t) => iso(t.timestamp))).toEqual(Array.from({ length: 14 }, (_, i) => [
      iso(at('2026-06-08T23:00:00Z') + i * D + 9 * H), iso(at('2026-06-08T23:00:00Z') + i * D + 20 * H),
    ]).flat());
  });

  it('has no 2030 cap (the reference stopped repeating in 2030)', () => {
    const { tasks } = generateSchedule(aProtocol(), user(), { now: at('2035-03-01T12:00:00Z') });
    expect(tasks.length).toBe(3 * 14);
    expect(tasks.every((t) => new Date(t.timestamp).getUTCFullYear() === 2035)).toBe(true);
  });

  it('gives a task the fields of §2.6 from its assessment', () => {
    const { tasks } = generateSchedule(aProtocol(), user({ language: 'nl' }), { now: at('2026-06-15T12:00:00Z') });
    expect(tasks.find((t) => t.name === 'ESM')).toEqual({
      name: 'ESM', type: 'scheduled', timestamp: expect.any(Number), completionWindow: H, estimatedCompletionTime: 5,
      warning: 'Waarschuwing voor ESM', isClinical: false, showInCalendar: true, isDemo: false, priority: 1, nQuestions: 8,
    });
  });

  it('keeps month steps on the reference day (no drift after a short month)', () => {
    const protocol = one('M', { repeatProtocol: { unit: 'month', amount: 1 }, repeatQuestionnaire: { unit: 'day', unitsFromZero: [0] }, referenceTimestamp: { timestamp: '2026-01-31', format: 'date' } });
    const dates = [at('2026-02-25T00:00:00Z'), at('2026-03-28T00:00:00Z')].map((now) =>
      generateSchedule(protocol, user({ timezone: 'UTC' }), { now }).tasks.map((t) => iso(t.timestamp)));
    expect(dates).toEqual([['2026-02-28T00:00:00.000Z'], ['2026-03-31T00:00:00.000Z']]);
  });

  it('jumps over years of repeats from an old enrolment quickly', () => {
    const started = performance.now();
    const { tasks } = generateSchedule(one('A', { repeatProtocol: { unit: 'hour', amount: 1 }, repeatQuestionnaire: { unit: 'min', unitsFromZero: [0] } }), user({ enrolmentDate: new Date('2000-01-01T00:00:00Z') }), { now: at('2026-06-15T12:30:00Z') });
    expect(tasks).toHaveLength(14 * 24);
    expect(tasks[0]!.timestamp).toBe(at('2026-06-08T13:00:00Z'));
    expect(performance.now() - started).toBeLessThan(1000);
  });

  it('default completion window is one day; a month window is 31 days', () => {
    const now = at('2026-06-15T12:00:00Z');
    const [noWindow] = generateSchedule(one('A', { completionWindow: null }), user(), { now }).tasks;
    const [month] = generateSchedule(one('A', { completionWindow: { unit: 'month', amount: 1 } }), user(), { now }).tasks;
    expect([noWindow!.completionWindow, month!.completionWindow]).toEqual([86_400_000, 31 * D]);
  });

  it('schedules neither clinical nor unknown assessment types (kept in the protocol, not scheduled)', () => {
    const protocol = aProtocol([anAssessment('C', { type: 'clinical' }), anAssessment('O', { type: 'on_demand' }), anAssessment('T', { type: 'TRIGGERED' })]);
    const { tasks, warnings } = generateSchedule(protocol, user(), { now: at('2026-06-15T12:00:00Z') });
    expect(new Set(tasks.map((t) => `${t.name}:${t.type}`))).toEqual(new Set(['T:triggered']));
    expect(warnings).toEqual([]);
  });
});

describe('reference timestamps', () => {
  const now = at('2026-06-15T12:34:00Z');
  const first = (referenceTimestamp: unknown, timezone = 'Europe/London') =>
    iso(generateSchedule(one('A', { referenceTimestamp, repeatProtocol: { unit: 'week', amount: 1 }, repeatQuestionnaire: { unit: 'min', unitsFromZero: [0] } }), user({ timezone }), { now }).tasks[0]!.timestamp);

  it('absent: local midnight of the enrolment date', () => {
    // Enrolled 2026-01-10 (a Saturday) 12:00Z: weekly from Sat 00:00 local; BST midnight is 23:00Z.
    expect(first(undefined)).toBe('2026-06-12T23:00:00.000Z');
  });
  it('date: midnight of that date in the zone; datetime: that local time; datetimeutc and plain strings: that instant', () => {
    expect(first({ timestamp: '2026-06-10', format: 'date' })).toBe('2026-06-09T23:00:00.000Z');
    expect(first({ timestamp: '2026-06-10T08:15:00', format: 'datetime' })).toBe('2026-06-10T07:15:00.000Z');
    expect(first({ timestamp: '2026-06-10T08:15:00Z', format: 'datetimeutc' })).toBe('2026-06-10T08:15:00.000Z');
    expect(first('2026-06-10T08:15:00+02:00')).toBe('2026-06-10T06:15:00.000Z');
  });
  it('now and today', () => {
    expect(first({ format: 'now' })).toBe(iso(now));
    expect(first({ format: 'today' })).toBe('2026-06-14T23:00:00.000Z');
  });
  it('unreadable: the assessment is skipped with a warning, others are scheduled', () => {
    const protocol = aProtocol([anAssessment('Bad', { protocol: { referenceTimestamp: { timestamp: 'soon', format: 'date' } } }), anAssessment('Good')]);
    const { tasks, warnings } = generateSchedule(protocol, user(), { now });
    expect(new Set(tasks.map((t) => t.name))).toEqual(new Set(['Good']));
    expect(warnings).toEqual(['Bad: referenceTimestamp unreadable: not scheduled']);
  });
});

describe('DST in Europe/London', () => {
  const daily = (unit: string) => one('A', { repeatQuestionnaire: { unit, unitsFromZero: unit === 'day' ? [0] : [9 * (unit === 'hour' ? 1 : 60)] } });
  const times = (unit: string, now: string) => generateSchedule(daily(unit), user(), { now: at(now) }).tasks.map((t) => iso(t.timestamp));

  it('daily repeats stay at local midnight across the spring change (2026-03-29)', () => {
    const tasks = times('day', '2026-03-29T12:00:00Z');
    expect(tasks).toContain('2026-03-28T00:00:00.000Z'); // GMT
    expect(tasks).toContain('2026-03-29T00:00:00.000Z'); // the change is at 01:00 GMT, after midnight
    expect(tasks).toContain('2026-03-29T23:00:00.000Z'); // BST midnight of the 30th
    expect(new Set(tasks.map((t) => new Date(t).toLocaleTimeString('en-GB', { timeZone: 'Europe/London' })))).toEqual(new Set(['00:00:00']));
  });

  it('hour offsets are exact durations: midnight + 9 h is 10:00 BST on the change day, 09:00 otherwise', () => {
    const tasks = times('hour', '2026-03-29T12:00:00Z');
    expect(tasks).toContain('2026-03-28T09:00:00.000Z'); // 09:00 GMT
    expect(tasks).toContain('2026-03-29T09:00:00.000Z'); // 10:00 BST: 9 h after a GMT midnight
    expect(tasks).toContain('2026-03-30T08:00:00.000Z'); // 09:00 BST
    expect(times('min', '2026-03-29T12:00:00Z')).toEqual(tasks);
  });

  it('the autumn change (2026-10-25): 25-hour day, midnight + 9 h is 08:00 GMT', () => {
    const tasks = times('hour', '2026-10-25T12:00:00Z');
    expect(tasks).toContain('2026-10-24T08:00:00.000Z'); // 09:00 BST
    expect(tasks).toContain('2026-10-25T08:00:00.000Z'); // midnight BST (23:00Z) + 9 h = 08:00 GMT
    expect(tasks).toContain('2026-10-26T09:00:00.000Z'); // 09:00 GMT
    const midnights = times('day', '2026-10-25T12:00:00Z');
    expect(midnights).toContain('2026-10-24T23:00:00.000Z');
    expect(midnights).toContain('2026-10-26T00:00:00.000Z');
  });

  it('a reminder a day later (calendar step) keeps the local time across the change', () => {
    const protocol = one('A', { repeatProtocol: { unit: 'week', amount: 1 }, repeatQuestionnaire: { unit: 'day', unitsFromZero: [0] }, referenceTimestamp: { timestamp: '2026-03-28T10:00:00', format: 'datetime' }, completionWindow: { unit: 'day', amount: 3 }, reminders: { unit: 'day', amount: 1, repeat: 1 } });
    const { notifications } = generateSchedule(protocol, user(), { now: at('2026-03-27T00:00:00Z') });
    expect(notifications.map((n) => [n.kind, iso(n.scheduledTime)]).slice(0, 2)).toEqual([
      ['now', '2026-03-28T10:00:00.000Z'], ['reminder', '2026-03-29T09:00:00.000Z'], // 10:00 GMT, then 10:00 BST
    ]);
  });
});

describe('local times that do not exist or occur twice (as Luxon resolves them)', () => {
  const first = (timestamp: string, unit = 'day') => iso(generateSchedule(one('A', { referenceTimestamp: { timestamp, format: 'datetime' }, repeatProtocol: { unit, amount: 1 }, repeatQuestionnaire: { unit: 'min', unitsFromZero: [0] } }), user(), { now: at('2026-03-30T12:00:00Z') }).tasks[0]!.timestamp);
  it('01:30 on the spring change day does not exist: 02:30 BST, and the days after keep 02:30', () => {
    expect(first('2026-03-24T01:30:00')).toBe('2026-03-24T01:30:00.000Z'); // first repeat in the window: 03-24 (GMT)
    const protocol = one('A', { referenceTimestamp: { timestamp: '2026-03-29T01:30:00', format: 'datetime' }, repeatQuestionnaire: { unit: 'min', unitsFromZero: [0] } });
    expect(generateSchedule(protocol, user(), { now: at('2026-03-29T12:00:00Z') }).tasks.slice(0, 2).map((t) => iso(t.timestamp)))
      .toEqual(['2026-03-29T01:30:00.000Z', '2026-03-30T01:30:00.000Z']);
  });
  it('01:30 on the autumn change day (twice) is the second, GMT one', () => {
    const protocol = one('A', { referenceTimestamp: { timestamp: '2026-10-25T01:30:00', format: 'datetime' }, repeatQuestionnaire: { unit: 'min', unitsFromZero: [0] } });
    expect(generateSchedule(protocol, user(), { now: at('2026-10-25T12:00:00Z') }).tasks.slice(0, 2).map((t) => iso(t.timestamp)))
      .toEqual(['2026-10-25T01:30:00.000Z', '2026-10-26T01:30:00.000Z']);
  });
});

describe('integer time zones: a fixed offset in seconds (the reference read them as GMT)', () => {
  const now = at('2026-06-15T12:00:00Z');
  it('7200: local midnight is 22:00Z the day before, whatever the season', () => {
    for (const when of [now, at('2026-01-15T12:00:00Z')]) {
      const { tasks } = generateSchedule(one('A', { repeatQuestionnaire: { unit: 'day', unitsFromZero: [0] } }), user({ timezone: '7200' }), { now: when });
      expect(tasks.every((t) => new Date(t.timestamp).getUTCHours() === 22)).toBe(true);
    }
  });
  it('negative and non-hour offsets (-16200 = −4:30, 19800 = +5:30)', () => {
    const first = (timezone: string) => iso(generateSchedule(one('A', { repeatQuestionnaire: { unit: 'day', unitsFromZero: [0] } }), user({ timezone }), { now }).tasks[0]!.timestamp);
    expect(first('-16200')).toBe('2026-06-09T04:30:00.000Z'); // 06-08 04:30Z is before now − 7 d
    expect(first('19800')).toBe('2026-06-08T18:30:00.000Z');
  });
});

describe('notifications (reference defects fixed)', () => {
  const now = at('2026-06-15T08:00:00Z');
  const forTask = (s: ReturnType<typeof generateSchedule>, timestamp: number) => s.notifications.filter((n) => n.task === taskKey({ name: s.tasks[0]!.name, timestamp }));
  const nineBst = at('2026-06-15T08:00:00Z') + 0; // 09:00 BST

  it('ttlSeconds is the seconds to the end of the task window (the reference stored milliseconds)', () => {
    const s = generateSchedule(one('A', { reminders: { unit: 'min', amount: 20, repeat: 2 } }), user(), { now: now - H });
    expect(forTask(s, nineBst).map((n) => [n.kind, iso(n.scheduledTime), n.ttlSeconds])).toEqual([
      ['now', '2026-06-15T08:00:00.000Z', 3600],
      ['reminder', '2026-06-15T08:20:00.000Z', 2400],
      ['reminder', '2026-06-15T08:40:00.000Z', 1200],
    ]);
  });

  it('reminder k is at task + k × offset (the reference gave all one time), and only inside the window', () => {
    const s = generateSchedule(one('A', { reminders: { unit: 'min', amount: 25, repeat: 5 } }), user(), { now: now - H });
    expect(forTask(s, nineBst).filter((n) => n.kind === 'reminder').map((n) => iso(n.scheduledTime))).toEqual([
      '2026-06-15T08:25:00.000Z', '2026-06-15T08:50:00.000Z', // 09:15 would be at the window's end
    ]);
  });

  it('none once the window has ended; of those already due, only the latest', () => {
    const s = generateSchedule(one('A', { reminders: { unit: 'min', amount: 20, repeat: 2 } }), user(), { now: now + 25 * 60_000 });
    expect(forTask(s, nineBst).map((n) => [n.kind, iso(n.scheduledTime), n.ttlSeconds])).toEqual([
      ['reminder', '2026-06-15T08:20:00.000Z', 2400], ['reminder', '2026-06-15T08:40:00.000Z', 1200],
    ]);
    expect(forTask(s, nineBst - D)).toEqual([]); // yesterday's window ended
    expect(s.tasks.some((t) => t.timestamp === nineBst - D)).toBe(true); // its task is still there
  });

  it('no reminders in the protocol: no reminders, and no error (the reference NPE aborted every user)', () => {
    const s = generateSchedule(aProtocol([anAssessment('A', { protocol: { reminders: undefined } }), anAssessment('B')]), user(), { now: now - H });
    const kinds = s.notifications.filter((n) => n.type === 'A').map((n) => n.kind);
    expect(kinds.length).toBeGreaterThan(0);
    expect(new Set(kinds)).toEqual(new Set(['now']));
    expect(s.notifications.some((n) => n.type === 'B' && n.kind === 'reminder')).toBe(true);
  });

  it('mode disabled: neither notifications nor reminders; combined: as standard', () => {
    const disabled = generateSchedule(one('A', { notification: { mode: 'disabled' } }), user(), { now });
    const combined = generateSchedule(one('A', { notification: { mode: 'combined' } }), user(), { now });
    const standard = generateSchedule(one('A', { notification: { mode: 'standard' } }), user(), { now });
    expect(disabled.tasks.length).toBe(14);
    expect(disabled.notifications).toEqual([]);
    expect(combined.notifications.length).toBeGreaterThan(0);
    expect(combined.notifications.map((n) => [n.kind, n.scheduledTime])).toEqual(standard.notifications.map((n) => [n.kind, n.scheduledTime]));
  });

  it('dayOfWeekMap and randomAmountBetween skip that assessment with a warning', () => {
    const protocol = aProtocol([
      anAssessment('W', { protocol: { repeatQuestionnaire: { unit: 'day', dayOfWeekMap: { monday: [9] } } } }),
      anAssessment('R', { protocol: { repeatProtocol: { unit: 'day', randomAmountBetween: [1, 3] } } }),
      anAssessment('OK'),
    ]);
    const s = generateSchedule(protocol, user(), { now });
    expect(new Set(s.tasks.map((t) => t.name))).toEqual(new Set(['OK']));
    expect(s.warnings).toEqual([
      'W: repeatQuestionnaire.dayOfWeekMap is not supported: not scheduled',
      'R: repeatProtocol.randomAmountBetween is not supported: not scheduled',
    ]);
  });

  it("texts in the user's language, else en, else the defaults; never empty", () => {
    const texts = (language: string | null, notification: Record<string, unknown>) => {
      const s = generateSchedule(one('A', { notification, reminders: { unit: 'min', amount: 10, repeat: 1 } }, { estimatedCompletionTime: 7 }), user({ language }), { now: now - H });
      return forTask(s, nineBst).map((n) => [n.title, n.body]);
    };
    const nl = { title: { en: 'Time', nl: 'Tijd' }, text: { en: 'Go', nl: 'Ga' } };
    expect(texts('nl', nl)).toEqual([['Tijd', 'Ga'], ['Tijd', 'Ga']]);
    expect(texts('nl-BE', nl)).toEqual([['Tijd', 'Ga'], ['Tijd', 'Ga']]);
    expect(texts('de', nl)).toEqual([['Time', 'Go'], ['Time', 'Go']]);
    expect(texts(null, nl)).toEqual([['Time', 'Go'], ['Time', 'Go']]);
    const defaults = [[DEFAULT_TEXTS.nowTitle, "Won't usually take longer than 7 minutes"], [DEFAULT_TEXTS.reminderTitle, DEFAULT_TEXTS.reminderBody]];
    expect(texts('de', { title: { en: '', de: ' ' }, text: { en: '' } })).toEqual(defaults);
    expect(texts('en', {})).toEqual(defaults);
  });

  it("the protocol's e-mail texts are used (the reference fell back to the push texts)", () => {
    const email = { enabled: true, title: { en: 'Mail title', nl: 'Mail titel' }, text: { en: 'Mail body' } };
    const s = generateSchedule(one('A', { notification: { title: { en: 'T' }, text: { en: 'B' }, email } }), user({ language: 'nl' }), { now });
    expect(s.notifications[0]).toMatchObject({ emailEnabled: true, emailTitle: 'Mail titel', emailBody: 'Mail body', type: 'A' });
    const off = generateSchedule(one('A'), user(), { now });
    expect(off.notifications[0]).toMatchObject({ emailEnabled: false, emailTitle: null, emailBody: null });
  });

  it('exact, distinct times for every task and reminder of many assessments (no shared mutable offset)', () => {
    const protocol = aProtocol(Array.from({ length: 6 }, (_, i) => anAssessment(`Q${i}`, { protocol: { repeatQuestionnaire: { unit: 'min', unitsFromZero: [60 * i + 7] }, reminders: { unit: 'min', amount: 5 + i, repeat: 3 } } })));
    const s = generateSchedule(protocol, user(), { now: now - 2 * D });
    for (const task of s.tasks) {
      const mine = s.notifications.filter((n) => n.task === taskKey(task));
      const step = (5 + Number(task.name.slice(1))) * 60_000;
      expect(mine.map((n) => n.scheduledTime - task.timestamp)).toEqual(mine.length ? [0, step, 2 * step, 3 * step].slice(4 - mine.length) : []);
    }
  });
});

describe('random offsets (randomUnitsFromZeroBetween)', () => {
  const protocol = one('R', { repeatQuestionnaire: { unit: 'min', randomUnitsFromZeroBetween: [[540, 600], [1020, 1080]] } });
  const now = at('2026-06-15T12:00:00Z');
  it('draws inside each range, the same on every run for the same user, another for another user', () => {
    const a = generateSchedule(protocol, user(), { now }).tasks.map((t) => t.timestamp);
    expect(generateSchedule(protocol, user(), { now: now + H }).tasks.map((t) => t.timestamp)).toEqual(a);
    expect(generateSchedule(protocol, user({ seed: 'u2' }), { now }).tasks.map((t) => t.timestamp)).not.toEqual(a);
    for (const ts of a) {
      const minutes = new Date(ts).getUTCHours() * 60 + new Date(ts).getUTCMinutes() + 60; // BST midnight is 23:00Z
      expect((minutes >= 540 && minutes <= 600) || (minutes >= 1020 && minutes <= 1080)).toBe(true);
    }
  });
});
