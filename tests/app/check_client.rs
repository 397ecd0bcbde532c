//! `mcp-decoy check-client -- COMMAND`: the app's binary grades a client program with the
//! conformance suite's client scenarios, prints a line per scenario and the failing checks,
//! writes what the suite writes with `-o`, and exits 0 only when every run passed.

use std::path::PathBuf;
use std::process::Output;

const BINARY: &str = env!("CARGO_BIN_EXE_mcp-decoy");

fn example_client() -> PathBuf {
    crate::common::built_example("conformance_client")
}

async fn check_client(args: &[&str], client: &[&str]) -> Output {
    tokio::process::Command::new(BINARY)
        .arg("check-client")
        .args(args)
        .arg("--")
        .args(client)
        .output()
        .await
        .expect("run mcp-decoy check-client")
}

fn stdout(output: &Output) -> String {
    String::from_utf8_lossy(&output.stdout).into_owned()
}

#[tokio::test]
async fn a_correct_client_passes_every_scenario_and_the_suites_files_are_written() {
    let dir = std::env::temp_dir().join(format!("check-client-{}", std::process::id()));
    let client = example_client();
    let client = client.to_str().expect("a UTF-8 path");

    // rmcp has no DPoP: the example fails those two, as the baseline says.
    std::fs::create_dir_all(&dir).expect("a folder");
    let baseline = dir.join("expected-failures.yaml");
    std::fs::write(&baseline, "client:\n  - auth/dpop\n  - auth/dpop-nonce\n").expect("written");

    let output = check_client(
        &[
            "-o",
            dir.to_str().expect("UTF-8"),
            "--expected-failures",
            baseline.to_str().expect("UTF-8"),
        ],
        &[client],
    )
    .await;

    let text = stdout(&output);
    assert_eq!(output.status.code(), Some(0), "{text}");
    assert!(text.contains("PASSED   initialize"), "{text}");
    assert!(text.contains("PASSED   tools_call"), "{text}");
    assert!(text.contains("FAILED   auth/dpop "), "{text}");
    let runs = text.lines().filter(|l| l.starts_with("PASSED")).count();
    assert!(runs >= 5, "{text}");
    assert!(
        text.contains(&format!("{runs} of {} scenario runs passed", runs + 2)),
        "{text}"
    );
    assert!(
        text.contains("The run is as the baseline expects."),
        "{text}"
    );
    let checks: serde_json::Value = serde_json::from_slice(
        &std::fs::read(dir.join("tools_call/checks.json")).expect("checks.json"),
    )
    .expect("JSON");
    assert_eq!(checks[0]["id"], "tool-add-numbers");
    assert_eq!(checks[0]["status"], "SUCCESS");
    let said = std::fs::read_to_string(dir.join("tools_call/stdout.txt")).expect("stdout.txt");
    assert_eq!(said.trim(), "The sum of 5 and 3 is 8");
    let _ = std::fs::remove_dir_all(&dir);
}

#[tokio::test]
async fn a_failing_client_exits_1_with_the_checks_that_failed() {
    let output = check_client(
        &["--scenario", "tools_call", "--timeout", "5"],
        &["sh", "-c", "exit 4"],
    )
    .await;

    let text = stdout(&output);
    assert_eq!(output.status.code(), Some(1), "{text}");
    assert!(text.contains("FAILED   tools_call"), "{text}");
    assert!(text.contains("the client exited with status 4"), "{text}");
    assert!(
        text.contains("FAILURE  tool-add-numbers"),
        "the failing check is listed: {text}"
    );
}

#[tokio::test]
async fn bad_arguments_are_refused_naming_them() {
    let unknown = check_client(&["--scenario", "no-such"], &["true"]).await;
    assert_eq!(unknown.status.code(), Some(2));
    let said = String::from_utf8_lossy(&unknown.stderr);
    assert!(said.contains("no scenario `no-such`"), "{said}");
    assert!(said.contains("initialize, tools_call"), "{said}");

    let version = check_client(&["--spec-version", "2024-01-01"], &["true"]).await;
    assert_eq!(version.status.code(), Some(2));
    let said = String::from_utf8_lossy(&version.stderr);
    assert!(said.contains("2024-01-01"), "{said}");

    let no_command = tokio::process::Command::new(BINARY)
        .arg("check-client")
        .output()
        .await
        .expect("run it");
    assert_eq!(no_command.status.code(), Some(2));
}

#[tokio::test]
async fn a_scenario_that_does_not_apply_at_the_revision_is_skipped_not_passed() {
    let output = check_client(
        &["--scenario", "initialize", "--spec-version", "2026-07-28"],
        &["true"],
    )
    .await;

    let text = stdout(&output);
    assert!(text.contains("SKIPPED  initialize"), "{text}");
    assert!(text.contains("0 of 0 scenario runs passed"), "{text}");
}

fn temp(name: &str) -> PathBuf {
    std::env::temp_dir().join(format!("check-client-{}-{name}", std::process::id()))
}

#[tokio::test]
async fn a_suite_runs_its_scenarios_and_a_suite_not_graded_yet_is_refused() {
    let client = example_client();
    let client = client.to_str().expect("a UTF-8 path");

    let core = check_client(&["--suite", "core"], &[client]).await;
    let text = stdout(&core);
    assert_eq!(core.status.code(), Some(0), "{text}");
    assert!(text.contains("PASSED   sse-retry"), "{text}");
    assert!(!text.contains("request-metadata"), "not in core: {text}");

    let unknown = check_client(&["--suite", "nightly"], &[client]).await;
    assert_eq!(unknown.status.code(), Some(2));
    let said = String::from_utf8_lossy(&unknown.stderr);
    assert!(said.contains("`nightly` is not a suite"), "{said}");
    assert!(said.contains("core"), "{said}");
}

#[tokio::test]
async fn expected_failures_pass_a_known_failure_and_fail_a_new_or_stale_one() {
    let baseline = temp("baseline.yaml");
    let run = |yaml: &'static str| {
        let baseline = baseline.clone();
        async move {
            std::fs::write(&baseline, yaml).expect("write the baseline");
            let path = baseline.to_str().expect("UTF-8").to_string();
            check_client(
                &[
                    "--scenario",
                    "tools_call",
                    "--scenario",
                    "initialize",
                    "--expected-failures",
                    &path,
                ],
                &["sh", "-c", "exit 0"],
            )
            .await
        }
    };

    // A client that does nothing fails both; the baseline lists both.
    let known = run("client:\n  - tools_call\n  - initialize:mcp-client-initialization\n").await;
    let text = stdout(&known);
    assert_eq!(known.status.code(), Some(0), "{text}");
    assert!(text.contains("  - tools_call"), "{text}");
    assert!(
        text.contains("  - initialize:mcp-client-initialization"),
        "{text}"
    );

    let new = run("client:\n  - tools_call\n").await;
    let text = stdout(&new);
    assert_eq!(new.status.code(), Some(1), "{text}");
    assert!(text.contains("Unexpected failures"), "{text}");
    assert!(
        text.contains("  - initialize:mcp-client-initialization"),
        "{text}"
    );

    let bad = run("client:\n  - initialize: mcp-client-initialization\n").await;
    assert_eq!(bad.status.code(), Some(2));
    let said = String::from_utf8_lossy(&bad.stderr);
    assert!(said.contains("Remove the space after the colon"), "{said}");
    let _ = std::fs::remove_file(&baseline);
}

#[tokio::test]
async fn a_stale_baseline_entry_fails_the_run() {
    let baseline = temp("stale.yaml");
    std::fs::write(&baseline, "client:\n  - tools_call\n").expect("write the baseline");
    let client = example_client();

    let output = check_client(
        &[
            "--scenario",
            "tools_call",
            "--expected-failures",
            baseline.to_str().expect("UTF-8"),
        ],
        &[client.to_str().expect("UTF-8")],
    )
    .await;

    let text = stdout(&output);
    assert_eq!(output.status.code(), Some(1), "{text}");
    assert!(text.contains("Stale baseline entries"), "{text}");
    let _ = std::fs::remove_file(&baseline);
}

#[tokio::test]
async fn junit_reports_a_case_per_run_with_the_failed_check() {
    let junit = temp("junit.xml");

    let output = check_client(
        &[
            "--scenario",
            "tools_call",
            "--scenario",
            "initialize",
            "--junit",
            junit.to_str().expect("UTF-8"),
        ],
        &["sh", "-c", "exit 0"],
    )
    .await;

    assert_eq!(output.status.code(), Some(1));
    let xml = std::fs::read_to_string(&junit).expect("the JUnit file");
    assert!(xml.contains(r#"tests="2""#), "{xml}");
    assert!(xml.contains(r#"failures="2""#), "{xml}");
    assert!(xml.contains(r#"name="tools_call@2025-11-25""#), "{xml}");
    assert!(
        xml.contains("FAILURE tool-add-numbers: Tool was not called by client"),
        "{xml}"
    );
    let _ = std::fs::remove_file(&junit);
}

// The suite's frozen requirement set: exactly its scenarios, at its revision; the
// `not_scored` ones reported apart, never failing the run.
#[tokio::test]
async fn requirements_runs_the_frozen_set_at_its_revision_and_reports_not_scored_apart() {
    let client = example_client();
    let client = client.to_str().expect("a UTF-8 path");

    let output = check_client(&["--requirements", "2026-07-28"], &[client]).await;

    let text = stdout(&output);
    assert_eq!(output.status.code(), Some(0), "{text}");
    assert!(
        text.contains("PASSED   request-metadata                          2026-07-28"),
        "{text}"
    );
    assert!(
        text.contains("PASSED   auth/metadata-default                     2026-07-28"),
        "{text}"
    );
    assert!(
        !text.contains("initialize  "),
        "no initialize at 2026-07-28: {text}"
    );
    // The extensions' scenarios are not scored: rmcp's failing DPoP ones fail nothing.
    assert!(text.contains("  FAILED auth/dpop (extension)"), "{text}");
    assert!(
        text.contains("  PASSED auth/wif-jwt-bearer (extension)"),
        "{text}"
    );
    assert!(
        text.contains("  PASSED json-schema-2020-12-preservation (added-after-release)"),
        "{text}"
    );

    // A client that does nothing fails the scored scenarios, not the run's bookkeeping.
    let idle = check_client(&["--requirements", "2025-11-25"], &["true"]).await;
    assert_eq!(idle.status.code(), Some(1), "{}", stdout(&idle));
    assert!(
        stdout(&idle).contains("FAILED   initialize"),
        "{}",
        stdout(&idle)
    );

    let unknown = check_client(&["--requirements", "2025-06-18"], &["true"]).await;
    assert_eq!(unknown.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&unknown.stderr).contains(
        "no frozen requirement set for 2025-06-18: the suite froze 2025-11-25 and 2026-07-28"
    ));
}

/// A client that meets its siblings: it marks its scenario in a folder, then waits (5 s at
/// most) until `n` scenarios have marked theirs, exiting 7 if they never do.
fn barrier_client(dir: &std::path::Path, n: usize) -> Vec<String> {
    let script = format!(
        "d='{dir}'; touch \"$d/$(echo \"$MCP_CONFORMANCE_SCENARIO\" | tr / _)\"; \
         for i in $(seq 50); do [ \"$(ls \"$d\" | wc -l)\" -ge {n} ] && exit 0; sleep 0.1; done; exit 7",
        dir = dir.display()
    );
    vec!["sh".into(), "-c".into(), script, "client".into()]
}

#[tokio::test]
async fn jobs_run_scenarios_at_once_and_report_them_in_order() {
    let scenarios = ["--scenario", "initialize", "--scenario", "tools_call"];
    let together = temp("together");
    std::fs::create_dir_all(&together).expect("a folder");
    let client = barrier_client(&together, 2);
    let client: Vec<&str> = client.iter().map(String::as_str).collect();
    let mut args = scenarios.to_vec();
    args.extend(["-j", "2", "--timeout", "10"]);

    let output = check_client(&args, &client).await;

    let text = stdout(&output);
    // Both clients met: neither gave up waiting for the other.
    assert!(!text.contains("status 7"), "{text}");
    // The summary lists the failed runs (they sent nothing) in the order asked for.
    let initialize = text
        .find("initialize at 2025-11-25: FAILED")
        .expect("initialize's table");
    let tools = text
        .find("tools_call at 2025-11-25: FAILED")
        .expect("tools_call's table");
    assert!(initialize < tools, "{text}");

    let apart = temp("apart");
    std::fs::create_dir_all(&apart).expect("a folder");
    let client = barrier_client(&apart, 2);
    let client: Vec<&str> = client.iter().map(String::as_str).collect();
    let mut args = scenarios.to_vec();
    args.extend(["-j", "1", "--timeout", "10"]);
    let output = check_client(&args, &client).await;
    let text = stdout(&output);
    // One at a time, the first client waits for a sibling that never comes.
    assert!(text.contains("the client exited with status 7"), "{text}");

    let zero = check_client(&["-j", "0"], &["true"]).await;
    assert_eq!(zero.status.code(), Some(2));
    let said = String::from_utf8_lossy(&zero.stderr);
    assert!(said.contains("not a number of jobs from 1 to 64"), "{said}");
    let _ = std::fs::remove_dir_all(&together);
    let _ = std::fs::remove_dir_all(&apart);
}

// Over stdio the grader is the server too: the client spawns `mcp-decoy stdio --attach ..`
// from the command it is handed, and the HTTP-only scenarios are skipped, saying so.
#[tokio::test]
async fn over_stdio_the_client_spawns_the_app_and_http_only_scenarios_are_skipped() {
    let client = example_client();
    let output = check_client(
        &[
            "--transport",
            "stdio",
            "--scenario",
            "tools_call",
            "--scenario",
            "sse-retry",
            "--scenario",
            "sep-2640-client-verify-digest",
        ],
        &[client.to_str().expect("a UTF-8 path")],
    )
    .await;
    let text = stdout(&output);
    assert_eq!(output.status.code(), Some(0), "{text}");
    assert!(text.contains("PASSED   tools_call"), "{text}");
    assert!(
        text.contains("PASSED   sep-2640-client-verify-digest"),
        "{text}"
    );
    assert!(
        text.contains("SKIPPED  sse-retry") && text.contains("graded over HTTP only"),
        "{text}"
    );
    assert!(text.contains("2 of 2 scenario runs passed"), "{text}");

    let refused = check_client(&["--transport", "sse"], &["true"]).await;
    assert_eq!(refused.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&refused.stderr).contains("`sse` is not a transport"),
        "{refused:?}"
    );
}
