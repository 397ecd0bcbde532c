#!/usr/bin/env node

// Not the suite's: mcp-decoy's stand-in CLI over the suite's WIF broken runners
// (wif-broken-clients.ts exports them for its tests and has no CLI of its own).
// Usage: wif-broken-cli.ts VARIANT SERVER_URL
import {
  runWifJwtBearerWrongAudience,
  runWifJwtBearerMissingAssertion,
  runWifJwtBearerExpiredAssertion,
  runWifJwtBearerScopeRejected,
  runWifJwtBearerGrantFallback,
  runWifJwtBearerRetry
} from './wif-broken-clients';

const variants: Record<string, (serverUrl: string) => Promise<void>> = {
  'wrong-audience': runWifJwtBearerWrongAudience,
  'missing-assertion': runWifJwtBearerMissingAssertion,
  expired: runWifJwtBearerExpiredAssertion,
  'scope-rejected': runWifJwtBearerScopeRejected,
  'grant-fallback': runWifJwtBearerGrantFallback,
  retry: runWifJwtBearerRetry
};

const [variant, serverUrl] = process.argv.slice(2);
const run = variants[variant ?? ''];
if (!run || !serverUrl) {
  console.error(`Usage: wif-broken-cli.ts ${Object.keys(variants).join('|')} <server-url>`);
  process.exit(2);
}
run(serverUrl)
  .then(() => process.exit(0))
  .catch((err) => {
    console.error(err);
    process.exit(1);
  });
