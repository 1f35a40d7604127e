// Types for scripts/build-if-stale.mjs, which stays plain JavaScript so `npm start` needs no loader.
export declare const BUILD_INPUTS: string[];
export declare const STAMP: string;
export declare const DOCS_INDEX: string;
export declare function staleReason(root: string, inputs?: string[], stamp?: string): string | null;
