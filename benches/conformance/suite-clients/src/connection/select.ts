// Not the suite's file: mcp-decoy's stand-in for src/connection/select.ts of
// @modelcontextprotocol/conformance, holding only the constant the example clients import.
// The original's value: every spec version not in its stateful list (2024-11-05 to 2025-11-25).
import { DRAFT_PROTOCOL_VERSION, type SpecVersion } from '../types';

export const STATELESS_SPEC_VERSIONS: readonly SpecVersion[] = [DRAFT_PROTOCOL_VERSION];
