//! Transport adapters: each turns its own bytes into messages for the pipeline and the
//! pipeline's outcomes back into bytes. Streamable HTTP ([`http`]) is the one today; a
//! newline-delimited byte stream (stdio, an in-memory duplex) or a relay is one more adapter
//! beside it, and none of them reaches into the methods.

pub(crate) mod http;
