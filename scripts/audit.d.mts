// Types for scripts/audit.mjs, which stays plain JavaScript so CI runs it with node alone.
export declare const FAILING_SEVERITIES: string[];
export declare function auditDecision(text: string): { status: 'pass' | 'fail' | 'unavailable'; lines: string[] };
