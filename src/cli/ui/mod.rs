//! The embedded web UI (product guide: the UI URL the banner prints). Plain HTML, CSS and
//! ES modules under `assets/`, compiled into the binary from one fixed table, so the app
//! works offline, fetches nothing from a CDN, and building the crate needs no Node. The
//! sources are the files served: there is no bundle to rebuild.
//!
//! `GET /` is `index.html`; every other file is under `/ui/`. The page routes with the URL
//! hash, so no other path needs to serve it. Each answer says `Cache-Control: no-cache` (a
//! new binary must not run the scripts an old one left in the browser cache) and
//! `X-Content-Type-Options: nosniff`; HTML also carries [`CSP`], which the assets are
//! written to satisfy: no inline scripts or `style` attributes, every fetch to this origin.
//!
//! Must not touch: the API or the engine. The page is a client of the REST API like any
//! other; the API's router mounts these routes behind its Host check.

use axum::Router;
use axum::extract::Path;
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::get;

/// The policy of every HTML answer: nothing but this origin's own files and API.
pub(crate) const CSP: &str = "default-src 'none'; script-src 'self'; style-src 'self'; \
    img-src 'self' data:; connect-src 'self'; base-uri 'none'; form-action 'self'; \
    frame-ancestors 'none'";

/// One served file: its path under `/ui/`, its media type, its bytes.
#[derive(Debug)]
struct Asset {
    path: &'static str,
    media: &'static str,
    body: &'static str,
}

/// An [`Asset`] read from `assets/PATH` at compile time.
macro_rules! asset {
    ($path:literal, $media:expr) => {
        Asset {
            path: $path,
            media: $media,
            body: include_str!(concat!("assets/", $path)),
        }
    };
}

const HTML: &str = "text/html; charset=utf-8";
const JS: &str = "text/javascript; charset=utf-8";
const CSS: &str = "text/css; charset=utf-8";
const SVG: &str = "image/svg+xml";

/// Every file the UI has. A file missing here is a 404, so adding one to `assets/` means
/// adding its line (the test below checks that both lists agree).
const ASSETS: &[Asset] = &[
    asset!("index.html", HTML),
    asset!("app.css", CSS),
    asset!("favicon.svg", SVG),
    asset!("js/api.js", JS),
    asset!("js/app.js", JS),
    asset!("js/catalog.js", JS),
    asset!("js/connections.js", JS),
    asset!("js/dialog.js", JS),
    asset!("js/dom.js", JS),
    asset!("js/editor.js", JS),
    asset!("js/header.js", JS),
    asset!("js/item-form.js", JS),
    asset!("js/keys.js", JS),
    asset!("js/kinds.js", JS),
    asset!("js/log-details.js", JS),
    asset!("js/log-format.js", JS),
    asset!("js/log-list.js", JS),
    asset!("js/logs.js", JS),
    asset!("js/memory.js", JS),
    asset!("js/poll.js", JS),
    asset!("js/server-view.js", JS),
    asset!("js/servers.js", JS),
    asset!("js/timeline.js", JS),
    asset!("js/timeline-draw.js", JS),
    asset!("js/timeline-model.js", JS),
];

/// `GET /` and `GET /ui/{path}`, for any router state.
pub(crate) fn routes<S: Clone + Send + Sync + 'static>() -> Router<S> {
    Router::new()
        .route("/", get(index))
        .route("/ui/{*path}", get(file))
}

async fn index() -> Response {
    serve("index.html")
}

async fn file(Path(path): Path<String>) -> Response {
    serve(&path)
}

fn serve(path: &str) -> Response {
    let Some(asset) = ASSETS.iter().find(|a| a.path == path) else {
        return (
            StatusCode::NOT_FOUND,
            [(header::CACHE_CONTROL, HeaderValue::from_static("no-cache"))],
            format!("the UI has no file `{path}`"),
        )
            .into_response();
    };
    let mut response = (
        [
            (header::CONTENT_TYPE, HeaderValue::from_static(asset.media)),
            (header::CACHE_CONTROL, HeaderValue::from_static("no-cache")),
            (
                header::X_CONTENT_TYPE_OPTIONS,
                HeaderValue::from_static("nosniff"),
            ),
        ],
        asset.body,
    )
        .into_response();
    if asset.media == HTML {
        let headers = response.headers_mut();
        headers.insert(
            header::CONTENT_SECURITY_POLICY,
            HeaderValue::from_static(CSP),
        );
        headers.insert(header::X_FRAME_OPTIONS, HeaderValue::from_static("DENY"));
        headers.insert(
            header::REFERRER_POLICY,
            HeaderValue::from_static("no-referrer"),
        );
    }
    response
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeSet;
    use std::path::PathBuf;

    fn files_under(dir: &std::path::Path, prefix: &str, out: &mut BTreeSet<String>) {
        for entry in std::fs::read_dir(dir).expect("the assets folder is readable") {
            let entry = entry.expect("a directory entry");
            let name = entry.file_name().to_string_lossy().into_owned();
            let path = format!("{prefix}{name}");
            if entry.path().is_dir() {
                files_under(&entry.path(), &format!("{path}/"), out);
            } else {
                out.insert(path);
            }
        }
    }

    #[test]
    fn the_table_serves_every_file_of_the_assets_folder_and_nothing_else() {
        let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("src/cli/ui/assets");
        let mut on_disk = BTreeSet::new();
        files_under(&dir, "", &mut on_disk);
        let served: BTreeSet<String> = ASSETS.iter().map(|a| a.path.to_string()).collect();
        assert_eq!(served, on_disk);
    }

    #[test]
    fn no_asset_needs_what_the_policy_forbids() {
        for asset in ASSETS {
            let body = asset.body;
            if asset.media == HTML {
                assert!(
                    !body.contains(" style="),
                    "{}: a style attribute",
                    asset.path
                );
                assert!(!body.contains("<style"), "{}: an inline style", asset.path);
                for script in body.split("<script").skip(1) {
                    assert!(
                        script
                            .trim_start()
                            .starts_with("type=\"module\" src=\"/ui/"),
                        "{}: an inline or foreign script",
                        asset.path
                    );
                }
            }
            // Links the page shows (the json-e docs) are fine; loading from elsewhere is not.
            for remote in [
                "src=\"http",
                "src=\"//",
                "url(http",
                "url(\"http",
                "url(//",
                "@import",
                "from \"http",
                "import(\"http",
                "rel=\"stylesheet\" href=\"http",
            ] {
                assert!(!body.contains(remote), "{}: `{remote}`", asset.path);
            }
        }
    }

    #[test]
    fn html_gets_the_strict_policy_and_every_file_nosniff_and_no_cache() {
        let page = serve("index.html");
        assert_eq!(page.headers()[header::CONTENT_SECURITY_POLICY], CSP);
        let script = serve("js/app.js");
        assert_eq!(script.headers()[header::CONTENT_TYPE], JS);
        assert_eq!(script.headers()[header::X_CONTENT_TYPE_OPTIONS], "nosniff");
        assert_eq!(script.headers()[header::CACHE_CONTROL], "no-cache");
        assert!(
            script
                .headers()
                .get(header::CONTENT_SECURITY_POLICY)
                .is_none()
        );
        assert_eq!(serve("../Cargo.toml").status(), StatusCode::NOT_FOUND);
    }
}
