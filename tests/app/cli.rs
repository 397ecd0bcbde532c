//! The `mcp-decoy` binary end to end (product guide: "Start MCP Decoy", "Options", "Where MCP
//! Decoy stores data"): the banner and the options, the config directory rules,
//! `servers.json` created, refused when invalid and kept across a restart, a port in use, one
//! instance per config directory with `runtime.json`, and clean shutdown on SIGTERM and Ctrl+C.
//! Each test starts the real binary on free ports with a scratch config directory.

use crate::common;
use crate::common::app_process;

use std::fs;
use std::path::Path;

use app_process::{READY, Running, Scratch, command, command_in, free_ports, run_to_exit};
use serde_json::{Value, json};

const VERSION: &str = env!("CARGO_PKG_VERSION");

fn read_json(path: &Path) -> Value {
    let text =
        fs::read_to_string(path).unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{} is not JSON: {e}", path.display()))
}

fn write_json(path: &Path, value: &Value) {
    fs::write(path, serde_json::to_string_pretty(value).expect("JSON")).expect("write the file");
}

/// A `kill -0`-free check: whether `/proc/<pid>` exists.
fn pid_exists(pid: u32) -> bool {
    Path::new("/proc").join(pid.to_string()).exists()
}

// ---------------------------------------------------------------------------------------
// Banner and options

#[test]
fn the_banner_shows_the_version_the_urls_the_config_path_and_each_server() {
    let dir = Scratch::new("banner");
    write_json(
        &dir.path().join("servers.json"),
        &json!({ "servers": [{ "name": "echo" }, { "name": "weather" }] }),
    );
    let app = Running::start(dir.path());
    let banner = &app.banner;
    let config = dir.path().join("servers.json");
    for expected in [
        format!("MCP Decoy v{VERSION}"),
        format!("UI        http://localhost:{}", app.ui_port),
        format!("API       http://localhost:{}/api/v1", app.ui_port),
        format!("Config    {}", config.display()),
        format!("echo  http://localhost:{}/s/echo/mcp", app.mcp_port),
        format!("weather  http://localhost:{}/s/weather/mcp", app.mcp_port),
        READY.to_string(),
    ] {
        assert!(banner.contains(&expected), "no `{expected}` in:\n{banner}");
    }
}

#[test]
fn help_prints_the_usage_naming_every_option() {
    for flag in ["-h", "--help"] {
        let mut help = command();
        help.arg(flag);
        let out = run_to_exit(help);
        assert!(out.status.success(), "{flag}: {}", out.stderr);
        assert!(out.stdout.contains("Usage: mcp-decoy"), "{}", out.stdout);
        for option in [
            "--mcp-port <port>",
            "--ui-port <port>",
            "--host <address>",
            "--config-dir <path>",
            "--log-limit <n>",
            "--header-timeout <secs>",
            "--idle-timeout <secs>",
            "--max-connections <n>",
            "--log-bytes <bytes>",
            "-h, --help",
            "-v, --version",
            "skill",
        ] {
            assert!(
                out.stdout.contains(option),
                "{flag}: no `{option}` in:\n{}",
                out.stdout
            );
        }
    }
}

#[test]
fn version_prints_the_version() {
    for flag in ["-v", "--version"] {
        let mut version = command();
        version.arg(flag);
        let out = run_to_exit(version);
        assert!(out.status.success(), "{flag}: {}", out.stderr);
        assert_eq!(out.stdout.trim(), format!("mcp-decoy {VERSION}"), "{flag}");
    }
}

#[test]
fn a_log_limit_below_100_exits_naming_the_minimum() {
    let dir = Scratch::new("log-limit");
    let mut app = command();
    app.arg("--config-dir")
        .arg(dir.path())
        .args(["--log-limit", "99"]);
    let out = run_to_exit(app);
    assert!(!out.status.success());
    assert!(
        out.stderr.contains("--log-limit") && out.stderr.contains("minimum is 100"),
        "{}",
        out.stderr
    );
    assert!(
        !dir.path().join("servers.json").exists(),
        "nothing is written"
    );
}

#[test]
fn bad_connection_limits_exit_naming_the_flag() {
    for (flag, value, says) in [
        ("--header-timeout", "0", "more than 0 seconds"),
        ("--idle-timeout", "soon", "not a number of seconds"),
        ("--max-connections", "0", "minimum is 1"),
    ] {
        let dir = Scratch::new("conn-flags");
        let mut app = command();
        app.arg("--config-dir").arg(dir.path()).args([flag, value]);
        let out = run_to_exit(app);
        assert!(!out.status.success(), "{flag} {value} is refused");
        assert!(
            out.stderr.contains(flag) && out.stderr.contains(says),
            "{flag} {value}: {}",
            out.stderr
        );
        assert!(
            !dir.path().join("servers.json").exists(),
            "nothing is written"
        );
    }
}

#[test]
fn a_log_bytes_below_1_mib_exits_naming_the_flag() {
    for bytes in ["0", "1000", "1023KiB", "lots"] {
        let dir = Scratch::new("log-bytes");
        let mut app = command();
        app.arg("--config-dir")
            .arg(dir.path())
            .args(["--log-bytes", bytes]);
        let out = run_to_exit(app);
        assert!(!out.status.success(), "--log-bytes {bytes}");
        assert!(out.stderr.contains("--log-bytes"), "{}", out.stderr);
        let why = if bytes == "lots" {
            "KiB, MiB or GiB"
        } else {
            "minimum is 1MiB"
        };
        assert!(out.stderr.contains(why), "{}", out.stderr);
        assert!(
            !dir.path().join("servers.json").exists(),
            "nothing is written"
        );
    }
}

#[test]
fn an_unknown_option_exits_non_zero_naming_it() {
    let mut app = command();
    app.arg("--no-such-option");
    let out = run_to_exit(app);
    assert!(!out.status.success());
    assert!(out.stderr.contains("--no-such-option"), "{}", out.stderr);
}

// ---------------------------------------------------------------------------------------
// The config directory

#[test]
fn an_absolute_xdg_config_home_holds_the_config_directory() {
    let scratch = Scratch::new("xdg-absolute");
    let (xdg, home) = (scratch.path().join("xdg"), scratch.path().join("home"));
    let (mcp_port, ui_port) = free_ports();
    let mut app = command();
    app.env("XDG_CONFIG_HOME", &xdg)
        .env("HOME", &home)
        .args(["--mcp-port", &mcp_port.to_string()])
        .args(["--ui-port", &ui_port.to_string()]);
    let app = Running::spawn(app, mcp_port, ui_port);
    let config = xdg.join("mcp-decoy").join("servers.json");
    assert!(
        app.banner.contains(&config.display().to_string()),
        "{}",
        app.banner
    );
    assert!(config.exists());
    assert!(xdg.join("mcp-decoy").join("runtime.json").exists());
    assert!(!home.exists(), "HOME is not used");
}

#[test]
fn a_relative_xdg_config_home_is_ignored_for_home_dot_config() {
    let scratch = Scratch::new("xdg-relative");
    let home = scratch.path().join("home");
    let cwd = scratch.path().join("cwd");
    fs::create_dir_all(&cwd).expect("cwd");
    let (mcp_port, ui_port) = free_ports();
    let mut app = command();
    app.current_dir(&cwd)
        .env("XDG_CONFIG_HOME", "relative/config")
        .env("HOME", &home)
        .args(["--mcp-port", &mcp_port.to_string()])
        .args(["--ui-port", &ui_port.to_string()]);
    let app = Running::spawn(app, mcp_port, ui_port);
    let config = home.join(".config").join("mcp-decoy").join("servers.json");
    assert!(
        app.banner.contains(&config.display().to_string()),
        "{}",
        app.banner
    );
    assert!(config.exists());
    assert!(
        !cwd.join("relative").exists(),
        "the relative XDG_CONFIG_HOME is not used"
    );
}

// ---------------------------------------------------------------------------------------
// servers.json

#[tokio::test]
async fn a_missing_servers_json_is_created_with_echo_and_a_client_can_call_it() {
    let dir = Scratch::new("created");
    let config = dir.path().join("servers.json");
    let app = Running::start(dir.path());

    let file = read_json(&config);
    assert_eq!(file["servers"][0]["name"], "echo", "{file:#}");
    assert_eq!(file["servers"][0]["tools"][0]["name"], "echo", "{file:#}");
    assert_eq!(
        file["servers"][0]["tools"][0]["published"], true,
        "{file:#}"
    );
    mcp_decoy::cli::config::check(&file).expect("the created file is valid");

    let client = common::connect(&app.mcp_url("echo")).await;
    assert_eq!(common::tool_names(&client).await, ["echo"]);
    let result = common::call_ok(&client, "echo", json!({ "message": "hello" })).await;
    assert_eq!(common::text(&result), "hello");
    client.cancel().await.expect("the client closes");
}

/// Starts the app on `document` and returns what it printed on stderr; the start must fail.
fn refused(name: &str, document: &str) -> (String, std::path::PathBuf, Scratch) {
    let dir = Scratch::new(name);
    let config = dir.path().join("servers.json");
    fs::write(&config, document).expect("write servers.json");
    let (mcp_port, ui_port) = free_ports();
    let out = run_to_exit(command_in(dir.path(), mcp_port, ui_port));
    assert!(!out.status.success(), "started on an invalid file");
    assert!(!out.stdout.contains(READY), "{}", out.stdout);
    assert!(
        out.stderr.contains(&config.display().to_string()),
        "the path is named: {}",
        out.stderr
    );
    assert_eq!(
        fs::read_to_string(&config).expect("read"),
        document,
        "the invalid file is left alone"
    );
    assert!(
        !dir.path().join("runtime.json").exists(),
        "runtime.json is removed"
    );
    (out.stderr, config, dir)
}

#[test]
fn a_servers_json_that_is_not_json_stops_start_up_naming_the_file() {
    let (stderr, _, _dir) = refused("bad-json", "{ \"servers\": [ ");
    assert!(stderr.contains("not valid JSON"), "{stderr}");
}

#[test]
fn schema_problems_in_servers_json_are_all_listed_with_their_pointers() {
    let (stderr, _, _dir) = refused(
        "bad-schema",
        r#"{ "servers": [ { "name": 7 }, { "name": "ok", "tools": [ { "name": "t", "published": "yes" } ] } ] }"#,
    );
    assert!(stderr.contains("/servers/0/name"), "{stderr}");
    assert!(stderr.contains("/servers/1/tools/0/published"), "{stderr}");
}

#[test]
fn unknown_members_in_servers_json_stop_start_up_naming_each_pointer() {
    // Arrange: misspelt members at every depth a server has (issue 12: they were ignored).
    let document = r#"{ "servers": [
        { "name": "a", "tool": [ { "name": "get_forecast" } ] },
        { "name": "b", "tools": [ { "name": "t", "templat": {}, "annotations": { "readOnly": true },
            "script": [ { "step": "delay", "ms": 5, "unit": "s" } ] } ] },
        { "name": "c", "resources": [ { "uri": "memo://a", "name": "a", "text": "hi", "mime": "x" } ],
          "prompts": [ { "name": "p", "arguments": [ { "name": "city", "require": true } ] } ] }
    ] }"#;

    // Act
    let (stderr, _, _dir) = refused("unknown-members", document);

    // Assert: one problem per member, at its own pointer.
    for pointer in [
        "/servers/0/tool: unknown field `tool`",
        "/servers/1/tools/0/templat: unknown field `templat`",
        "/servers/1/tools/0/annotations/readOnly: unknown field `readOnly`",
        "/servers/1/tools/0/script/0/unit: unknown field `unit`",
        "/servers/2/resources/0/mime: unknown field `mime`",
        "/servers/2/prompts/0/arguments/0/require: unknown field `require`",
    ] {
        assert!(stderr.contains(pointer), "{pointer} in: {stderr}");
    }
}

#[test]
fn a_resource_with_both_text_and_blob_in_servers_json_stops_start_up_naming_it() {
    let (stderr, _, _dir) = refused(
        "text-and-blob",
        r#"{ "servers": [ { "name": "a", "resources": [ { "uri": "memo://a", "name": "a", "text": "hi", "blob": "aGk=" } ] } ] }"#,
    );
    assert!(
        stderr.contains("/servers/0/resources/0: a resource has `text` or `blob`, not both"),
        "{stderr}"
    );
}

#[test]
fn rule_problems_in_servers_json_are_all_listed_with_their_pointers() {
    let (stderr, _, _dir) = refused(
        "bad-rules",
        r#"{ "servers": [ { "name": "ok", "tools": [ { "name": "bad name" } ] }, { "name": "a/b" } ] }"#,
    );
    assert!(
        stderr.contains("/servers/0") && stderr.contains("bad name"),
        "{stderr}"
    );
    assert!(stderr.contains("/servers/1/name"), "{stderr}");
}

#[test]
fn the_shipped_json_schema_equals_the_generated_one() {
    shipped_schema("servers.schema.json", mcp_decoy::cli::config::json_schema());
}

#[test]
fn the_shipped_cassette_schema_equals_the_generated_one() {
    shipped_schema("cassette.schema.json", mcp_decoy::cassette::json_schema());
}

/// Checks (or, with `MCP_DECOY_WRITE_SCHEMA`, writes) `schema/NAME`.
fn shipped_schema(name: &str, generated: serde_json::Value) {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("schema")
        .join(name);
    if std::env::var_os("MCP_DECOY_WRITE_SCHEMA").is_some() {
        let mut text = serde_json::to_string_pretty(&generated).expect("JSON");
        text.push('\n');
        fs::write(&path, text).expect("write the schema");
    }
    let shipped = read_json(&path);
    assert!(
        shipped == generated,
        "{} is out of date; regenerate it with \
         `MCP_DECOY_WRITE_SCHEMA=1 cargo test --features decoy-cli --test app cli::shipped`",
        path.display()
    );
}

// ---------------------------------------------------------------------------------------
// Ports

#[test]
fn an_mcp_port_in_use_exits_naming_mcp_port() {
    let dir = Scratch::new("mcp-port");
    let taken = std::net::TcpListener::bind("127.0.0.1:0").expect("bind a port");
    let mcp_port = taken.local_addr().expect("addr").port();
    let (_, ui_port) = free_ports();
    let out = run_to_exit(command_in(dir.path(), mcp_port, ui_port));
    assert!(!out.status.success());
    assert!(out.stderr.contains("--mcp-port"), "{}", out.stderr);
    assert!(!out.stderr.contains("--ui-port"), "{}", out.stderr);
    assert!(!dir.path().join("runtime.json").exists());
}

#[test]
fn a_ui_port_in_use_exits_naming_ui_port() {
    let dir = Scratch::new("ui-port");
    let taken = std::net::TcpListener::bind("127.0.0.1:0").expect("bind a port");
    let ui_port = taken.local_addr().expect("addr").port();
    let (mcp_port, _) = free_ports();
    let out = run_to_exit(command_in(dir.path(), mcp_port, ui_port));
    assert!(!out.status.success());
    assert!(out.stderr.contains("--ui-port"), "{}", out.stderr);
    assert!(!out.stderr.contains("--mcp-port"), "{}", out.stderr);
    assert!(!dir.path().join("runtime.json").exists());
}

// ---------------------------------------------------------------------------------------
// One instance per config directory

#[test]
fn runtime_json_describes_the_running_instance() {
    let dir = Scratch::new("runtime");
    let app = Running::start(dir.path());
    let runtime = read_json(&dir.path().join("runtime.json"));
    assert_eq!(runtime["pid"], app.pid(), "{runtime:#}");
    assert_eq!(runtime["version"], VERSION, "{runtime:#}");
    assert_eq!(runtime["apiUrl"], app.api(), "{runtime:#}");
    assert_eq!(
        runtime["mcpUrlPattern"],
        format!("http://localhost:{}/s/{{server}}/mcp", app.mcp_port),
        "{runtime:#}"
    );
    let started = runtime["startedAt"]
        .as_str()
        .expect("startedAt is a string");
    chrono::DateTime::parse_from_rfc3339(started).expect("startedAt is RFC 3339");
}

#[test]
fn a_second_instance_exits_naming_the_running_ones_url_and_pid() {
    let dir = Scratch::new("second");
    let first = Running::start(dir.path());
    let (mcp_port, ui_port) = free_ports();
    let out = run_to_exit(command_in(dir.path(), mcp_port, ui_port));
    assert!(!out.status.success());
    assert!(
        out.stderr.contains(&first.api()),
        "names the URL: {}",
        out.stderr
    );
    assert!(
        out.stderr.contains(&format!("pid {}", first.pid())),
        "names the pid: {}",
        out.stderr
    );
    let runtime = read_json(&dir.path().join("runtime.json"));
    assert_eq!(runtime["pid"], first.pid(), "the first one keeps the file");
}

#[test]
fn a_stale_runtime_json_from_a_killed_process_is_replaced() {
    let dir = Scratch::new("stale");
    // Above the kernel's pid_max (at most 2^22), so no process has it.
    let dead = 4_000_000_000u32;
    assert!(!pid_exists(dead));
    write_json(
        &dir.path().join("runtime.json"),
        &json!({
            "pid": dead, "version": "0.0.0", "startedAt": "2020-01-01T00:00:00Z",
            "apiUrl": "http://localhost:1/api/v1", "mcpUrlPattern": "http://localhost:2/s/{server}/mcp"
        }),
    );
    let app = Running::start(dir.path());
    let runtime = read_json(&dir.path().join("runtime.json"));
    assert_eq!(runtime["pid"], app.pid(), "{runtime:#}");
    assert_eq!(runtime["apiUrl"], app.api(), "{runtime:#}");
}

#[test]
fn a_killed_instances_runtime_json_does_not_block_the_next_start() {
    let dir = Scratch::new("killed");
    let first = Running::start(dir.path());
    first.signal("KILL");
    let (status, _) = first.wait();
    assert!(!status.success());
    assert!(
        dir.path().join("runtime.json").exists(),
        "SIGKILL leaves the file"
    );
    let second = Running::start(dir.path());
    let runtime = read_json(&dir.path().join("runtime.json"));
    assert_eq!(runtime["pid"], second.pid());
}

fn stops_cleanly_on(signal: &str) {
    let dir = Scratch::new(&format!("signal-{signal}"));
    let app = Running::start(dir.path());
    let runtime = dir.path().join("runtime.json");
    assert!(runtime.exists());
    app.signal(signal);
    let (status, stderr) = app.wait();
    assert!(status.success(), "SIG{signal}: {status}, stderr:\n{stderr}");
    assert!(!runtime.exists(), "SIG{signal} removes runtime.json");
    mcp_decoy::cli::config::check(&read_json(&dir.path().join("servers.json")))
        .expect("servers.json stays valid");
}

#[test]
fn sigterm_stops_the_app_and_removes_runtime_json() {
    stops_cleanly_on("TERM");
}

#[test]
fn ctrl_c_stops_the_app_and_removes_runtime_json() {
    stops_cleanly_on("INT");
}

#[tokio::test]
async fn sigterm_stops_the_app_while_a_client_holds_a_stream_open() {
    let dir = Scratch::new("signal-stream");
    let app = Running::start(dir.path());
    let (client, _changes) = common::connect_watching(&app.mcp_url("echo")).await;
    // rmcp opens the session's GET stream after `initialized`; give it a moment to be open.
    common::call_ok(&client, "echo", json!({ "message": "hi" })).await;
    app.signal("TERM");
    let (status, stderr) = tokio::task::spawn_blocking(move || app.wait())
        .await
        .expect("wait");
    assert!(status.success(), "{status}: {stderr}");
    assert!(!dir.path().join("runtime.json").exists());
    drop(client);
}

// ---------------------------------------------------------------------------------------
// Persistence

#[tokio::test]
async fn a_tool_created_over_the_api_is_there_after_a_restart() {
    let dir = Scratch::new("restart");
    let http = reqwest::Client::builder()
        .no_proxy()
        .build()
        .expect("client");
    {
        let app = Running::start(dir.path());
        let created = http
            .post(format!("{}/servers/echo/tools", app.api()))
            .bearer_auth(&app.api_token)
            .json(&json!({
                "name": "get_forecast",
                "description": "Get the forecast for a city",
                "inputSchema": { "type": "object", "properties": { "city": { "type": "string" } } },
                "template": { "content": [{ "type": "text", "text": "Rain in ${args.city}" }] },
                "published": true
            }))
            .send()
            .await
            .expect("POST a tool");
        let status = created.status();
        let body = created.text().await.unwrap_or_default();
        assert!(status.is_success(), "{status}: {body}");
        app.signal("TERM");
        let (status, stderr) = tokio::task::spawn_blocking(move || app.wait())
            .await
            .expect("wait");
        assert!(status.success(), "{stderr}");
    }

    let app = Running::start(dir.path());
    let tool: Value = http
        .get(format!("{}/servers/echo/tools/get_forecast", app.api()))
        .bearer_auth(&app.api_token)
        .send()
        .await
        .expect("GET the tool")
        .error_for_status()
        .expect("the tool exists after the restart")
        .json()
        .await
        .expect("JSON");
    assert_eq!(
        tool["description"], "Get the forecast for a city",
        "{tool:#}"
    );

    let client = common::connect(&app.mcp_url("echo")).await;
    assert_eq!(common::tool_names(&client).await, ["echo", "get_forecast"]);
    let result = common::call_ok(&client, "get_forecast", json!({ "city": "Oslo" })).await;
    assert_eq!(common::text(&result), "Rain in Oslo");
    client.cancel().await.expect("the client closes");
}

#[tokio::test]
async fn a_server_added_to_servers_json_before_start_is_hosted() {
    let dir = Scratch::new("edited");
    write_json(
        &dir.path().join("servers.json"),
        &json!({ "servers": [{
            "name": "weather",
            "tools": [{
                "name": "get_forecast",
                "template": { "content": [{ "type": "text", "text": "Sun in ${args.city}" }] }
            }]
        }] }),
    );
    let app = Running::start(dir.path());
    assert!(app.banner.contains("/s/weather/mcp"), "{}", app.banner);
    assert!(!app.banner.contains("/s/echo/mcp"), "{}", app.banner);
    let client = common::connect(&app.mcp_url("weather")).await;
    let result = common::call_ok(&client, "get_forecast", json!({ "city": "Rome" })).await;
    assert_eq!(common::text(&result), "Sun in Rome");
    client.cancel().await.expect("the client closes");
}

#[tokio::test]
async fn a_server_with_validate_arguments_in_servers_json_refuses_invalid_arguments() {
    // Arrange
    let dir = Scratch::new("validating");
    write_json(
        &dir.path().join("servers.json"),
        &json!({ "servers": [{
            "name": "shop",
            "validateArguments": true,
            "tools": [{
                "name": "search",
                "inputSchema": {
                    "type": "object",
                    "properties": { "query": { "type": "string" } },
                    "required": ["query"]
                }
            }]
        }] }),
    );
    let app = Running::start(dir.path());
    let client = common::connect(&app.mcp_url("shop")).await;

    // Act
    let refused = client
        .call_tool(common::call("search", json!({ "query": 7 })))
        .await;
    let valid = common::call_ok(&client, "search", json!({ "query": "rust" })).await;

    // Assert
    match refused {
        Err(rmcp::ServiceError::McpError(error)) => {
            assert_eq!(error.code.0, -32602);
            assert!(
                error
                    .message
                    .contains(r#"at /query: 7 is not of type "string""#),
                "{}",
                error.message
            );
        }
        other => panic!("expected -32602, got {other:?}"),
    }
    assert!(!valid.is_error.unwrap_or(false));
    client.cancel().await.expect("the client closes");
}

// ---------------------------------------------------------------------------------------
// The skill

#[test]
fn skill_prints_the_skill_markdown() {
    let mut skill = command();
    skill.arg("skill");
    let out = run_to_exit(skill);
    assert!(out.status.success(), "{}", out.stderr);
    assert!(
        out.stdout
            .starts_with("---\nname: mcp-decoy\ndescription: "),
        "{}",
        out.stdout
    );
    assert_eq!(out.stdout, mcp_decoy::cli::skill::text());
}

#[test]
fn skill_install_writes_the_skill_links_it_and_says_where() {
    let dir = Scratch::new("skill-install");
    for _ in 0..2 {
        let mut install = command();
        install.args(["skill", "install", "--dir"]).arg(dir.path());
        let out = run_to_exit(install);
        assert!(out.status.success(), "{}", out.stderr);
        let file = dir.path().join(".agents/skills/mcp-decoy/SKILL.md");
        let link = dir.path().join(".claude/skills/mcp-decoy");
        assert!(
            out.stdout.contains(&file.display().to_string())
                && out.stdout.contains(&link.display().to_string()),
            "{}",
            out.stdout
        );
        assert_eq!(
            fs::read_to_string(link.join("SKILL.md")).expect("the skill through the link"),
            mcp_decoy::cli::skill::text()
        );
    }
}

#[test]
fn skill_install_defaults_to_home() {
    let home = Scratch::new("skill-home");
    let mut install = command();
    install.args(["skill", "install"]).env("HOME", home.path());
    let out = run_to_exit(install);
    assert!(out.status.success(), "{}", out.stderr);
    assert!(
        home.path()
            .join(".claude/skills/mcp-decoy/SKILL.md")
            .exists()
    );
}

#[test]
fn skill_install_refuses_to_replace_a_directory_naming_it() {
    let dir = Scratch::new("skill-refuse");
    let existing = dir.path().join(".claude/skills/mcp-decoy");
    fs::create_dir_all(&existing).expect("a real directory");
    let mut install = command();
    install.args(["skill", "install", "--dir"]).arg(dir.path());
    let out = run_to_exit(install);
    assert!(!out.status.success());
    assert!(
        out.stderr.contains(&existing.display().to_string()),
        "{}",
        out.stderr
    );
}
