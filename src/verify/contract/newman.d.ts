/** The part of newman's Node API envproof uses (newman ships no type declarations). */
declare module 'newman' {
  export interface NewmanAssertion {
    assertion: string;
    skipped?: boolean;
    error?: { name?: string; message?: string };
  }
  export interface NewmanExecution {
    item: { name: string; id?: string; events?: { members?: { listen?: string; script?: { exec?: string[] } }[] } };
    request?: { method?: string; url?: { toString(): string } };
    response?: { code?: number; responseTime?: number };
    requestError?: { message?: string; code?: string };
    assertions?: NewmanAssertion[];
  }
  export interface NewmanSummary {
    run: {
      executions: NewmanExecution[];
      failures: { error: { name?: string; message?: string; test?: string }; source?: { name?: string; id?: string } }[];
    };
  }
  export interface NewmanRunOptions {
    collection: unknown;
    environment?: unknown;
    reporters?: string | string[];
    timeoutRequest?: number;
    timeout?: number;
    insecureFileRead?: boolean;
    ignoreRedirects?: boolean;
  }
  export function run(options: NewmanRunOptions, callback: (err: Error | null, summary: NewmanSummary) => void): unknown;
  const newman: { run: typeof run };
  export default newman;
}
