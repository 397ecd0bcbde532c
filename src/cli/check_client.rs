//! `mcp-decoy check-client -- COMMAND`: grades a client program with the conformance suite's
//! client scenarios (`crate::grade`), one run per scenario, and prints a line per scenario
//! as it finishes and the failing checks at the end; `-o DIR` writes what the suite writes,
//! `--junit` a JUnit report, and `--expected-failures` judges the run against the suite's
//! baseline file.

use std::path::Path;
use std::time::{Duration, Instant};

use futures::StreamExt;

use super::CheckClientArgs;
use crate::grade::{
    Baseline, BaselineVerdict, ClientCommand, Report, Requirements, Scenario, Suite,
};

/// Runs the scenarios and returns the process's exit status: 0 when every scenario run
/// passed (or failed as the baseline expects), 1 when one did not, 2 for a usage error.
pub async fn run(args: &CheckClientArgs) -> i32 {
    let Some((program, rest)) = args.command.split_first() else {
        eprintln!("mcp-decoy check-client: name the client command after `--`");
        return 2;
    };
    let planned = match args.requirements {
        Some(revision) => required(revision),
        None => chosen(&args.scenarios, args.suite).map(|scenarios| {
            scenarios
                .into_iter()
                .map(|scenario| Planned::of(scenario.name(), Some(scenario), None))
                .collect()
        }),
    };
    let planned = match planned {
        Ok(planned) => planned,
        Err(message) => {
            eprintln!("mcp-decoy check-client: {message}");
            return 2;
        }
    };
    let baseline = match &args.expected_failures {
        None => None,
        Some(path) => match load_baseline(path) {
            Ok(baseline) => Some(baseline),
            Err(message) => {
                eprintln!("mcp-decoy check-client: {}: {message}", path.display());
                return 2;
            }
        },
    };
    let mut client = ClientCommand::new(program)
        .args(rest)
        .timeout(args.timeout)
        .transport(args.transport);
    // Over stdio the scenario's server is this program's own `stdio --attach`.
    if let Ok(me) = std::env::current_exe() {
        client = client.stdio_server_program(me);
    }
    let mut runs = Vec::new();
    let mut unjudged = 0;
    for planned in planned {
        let Some(scenario) = planned.scenario else {
            println!(
                "SKIPPED  {:<41} (not graded by mcp-decoy yet{})",
                planned.name,
                planned
                    .reason
                    .map(|r| format!("; not scored: {r}"))
                    .unwrap_or_default()
            );
            unjudged += usize::from(planned.reason.is_none());
            continue;
        };
        let version = args
            .requirements
            .or(args.spec_version)
            .unwrap_or(scenario.default_version());
        // As the suite: a revision asked for filters; the default one runs every scenario,
        // and a requirement set runs each of its own at its revision.
        if args.spec_version.is_some() && !scenario.applies_at(version) {
            println!(
                "SKIPPED  {:<41} {} ({})",
                scenario.name(),
                version.as_str(),
                if scenario.is_extension() {
                    "an extension scenario, not on the spec timeline: run it without --spec-version"
                } else {
                    "the scenario does not apply at this revision"
                }
            );
            continue;
        }
        if !scenario.runs_over(args.transport) {
            println!(
                "SKIPPED  {:<41} {} (graded over HTTP only: it checks HTTP headers, event streams or OAuth)",
                scenario.name(),
                version.as_str(),
            );
            continue;
        }
        runs.push((planned, scenario, version));
    }
    // Each run has its own server and client process: `--jobs` of them at once, each line
    // printed as its run finishes, the summary below in the planned order.
    let mut finished: Vec<(usize, Planned, Report, Duration)> =
        futures::stream::iter(runs.into_iter().enumerate())
            .map(|(at, (planned, scenario, version))| {
                let client = &client;
                async move {
                    eprintln!("running {} at {} ...", scenario.name(), version.as_str());
                    let started = Instant::now();
                    let report = scenario.start_at(version).await.run(client).await;
                    let time = started.elapsed();
                    println!(
                        "{:<8} {:<41} {} ({:.1} s)",
                        if report.passed() { "PASSED" } else { "FAILED" },
                        scenario.name(),
                        version.as_str(),
                        time.as_secs_f64()
                    );
                    (at, planned, report, time)
                }
            })
            .buffer_unordered(args.jobs)
            .collect()
            .await;
    finished.sort_by_key(|(at, ..)| *at);
    let mut reports = Vec::new();
    let mut times = Vec::new();
    let mut not_scored: Vec<(String, &str, bool)> = Vec::new();
    for (_, planned, report, time) in finished {
        if let Some(dir) = &args.output_dir
            && let Err(error) = write(dir, &report)
        {
            eprintln!(
                "mcp-decoy check-client: cannot write {}: {error}",
                dir.display()
            );
            return 1;
        }
        match planned.reason {
            // Run and reported, never counted: apart from the scored runs.
            Some(reason) => not_scored.push((planned.name, reason, report.passed())),
            None => {
                reports.push(report);
                times.push(time);
            }
        }
    }
    if !not_scored.is_empty() {
        let failing = not_scored.iter().filter(|(_, _, passed)| !passed).count();
        println!(
            "\nNot scored: {} scenario run(s), {failing} failing; these do not affect conformance.",
            not_scored.len()
        );
        for (name, reason, passed) in &not_scored {
            println!(
                "  {} {name} ({reason})",
                if *passed { "PASSED" } else { "FAILED" }
            );
        }
    }
    if unjudged > 0 {
        println!(
            "\n{unjudged} required scenario(s) mcp-decoy does not grade yet: the run cannot pass"
        );
    }
    let failed: Vec<&Report> = reports.iter().filter(|r| !r.passed()).collect();
    for report in &failed {
        println!("\n{}", report.table());
    }
    println!(
        "\n{} of {} scenario runs passed",
        reports.len() - failed.len(),
        reports.len()
    );
    if let Some(path) = &args.junit
        && let Err(error) = write_junit(path, &reports, &times)
    {
        eprintln!(
            "mcp-decoy check-client: cannot write {}: {error}",
            path.display()
        );
        return 1;
    }
    match baseline {
        Some(baseline) => {
            let verdict = baseline.evaluate(&reports);
            print_verdict(&verdict);
            i32::from(!verdict.passed() || unjudged > 0)
        }
        None => i32::from(!failed.is_empty() || unjudged > 0),
    }
}

/// A scenario to run: graded by mcp-decoy or not (yet), and why it is not scored, if not.
struct Planned {
    name: String,
    scenario: Option<Scenario>,
    reason: Option<&'static str>,
}

impl Planned {
    fn of(name: &str, scenario: Option<Scenario>, reason: Option<&'static str>) -> Planned {
        Planned {
            name: name.to_string(),
            scenario,
            reason,
        }
    }
}

/// The frozen requirement set of `revision`: its scored scenarios, then the not-scored ones.
fn required(revision: crate::ProtocolVersion) -> Result<Vec<Planned>, String> {
    let Some(requirements) = Requirements::of(revision) else {
        let known: Vec<&str> = Requirements::REVISIONS.iter().map(|v| v.as_str()).collect();
        return Err(format!(
            "no frozen requirement set for {}: the suite froze {}",
            revision.as_str(),
            known.join(" and ")
        ));
    };
    let scored = requirements
        .scored()
        .into_iter()
        .map(|name| Planned::of(name, Scenario::named(name), None));
    let apart = requirements
        .not_scored()
        .iter()
        .map(|(name, reason)| Planned::of(name, Scenario::named(name), Some(reason)));
    Ok(scored.chain(apart).collect())
}

/// The scenarios named, in order, those of `suite`, or every graded one.
fn chosen(names: &[String], suite: Option<Suite>) -> Result<Vec<Scenario>, String> {
    if let Some(suite) = suite {
        let scenarios = Scenario::of_suite(suite);
        if scenarios.is_empty() {
            return Err(format!(
                "no scenario of the suite `{}` is graded yet",
                suite.as_str()
            ));
        }
        return Ok(scenarios);
    }
    if names.is_empty() {
        return Ok(Scenario::all());
    }
    names
        .iter()
        .map(|name| {
            Scenario::named(name).ok_or_else(|| {
                let known: Vec<&str> = Scenario::all().iter().map(Scenario::name).collect();
                format!(
                    "no scenario `{name}`; the graded ones: {}",
                    known.join(", ")
                )
            })
        })
        .collect()
}

/// The `client:` list of the suite's expected-failures YAML (its `server:` list is for
/// grading servers, and ignored here).
fn load_baseline(path: &Path) -> Result<Baseline, String> {
    use yaml_rust2::{Yaml, YamlLoader};

    let text = std::fs::read_to_string(path).map_err(|e| e.to_string())?;
    let documents = YamlLoader::load_from_str(&text).map_err(|e| format!("not YAML: {e}"))?;
    let root = match documents.first() {
        None | Some(Yaml::Null) => return Ok(Baseline::default()),
        Some(Yaml::Hash(root)) => root,
        Some(_) => {
            return Err("expected an object with 'server' and/or 'client' keys".into());
        }
    };
    if let Some(key) = root.keys().find_map(|k| match k {
        Yaml::String(k) if k == "client" || k == "server" => None,
        other => Some(format!("{other:?}")),
    }) {
        return Err(format!(
            "unknown key {key}: expected 'server' and/or 'client'"
        ));
    }
    let entries = match root.get(&Yaml::String("client".into())) {
        None | Some(Yaml::Null) => return Ok(Baseline::default()),
        Some(Yaml::Array(entries)) => entries,
        Some(_) => return Err("'client' must be an array of scenario names".into()),
    };
    let lines = entries
        .iter()
        .map(|entry| match entry {
            Yaml::String(s) => Ok(s.clone()),
            Yaml::Integer(i) => Ok(i.to_string()),
            Yaml::Real(r) => Ok(r.clone()),
            Yaml::Hash(pairs) => match pairs.iter().next() {
                Some((Yaml::String(key), Yaml::String(value))) if pairs.len() == 1 => Err(format!(
                    "'client' entry `{key}: {value}`: did you write '- {key}: {value}'? Remove \
                     the space after the colon: '- {key}:{value}'"
                )),
                _ => Err(
                    "'client' entry is a mapping: a per-check entry takes no space after \
                          the colon"
                        .to_string(),
                ),
            },
            other => Err(format!(
                "'client' entry {other:?} is not '<scenario>' or '<scenario>:<check-id>'"
            )),
        })
        .collect::<Result<Vec<String>, String>>()?;
    Baseline::parse(lines).map_err(|e| format!("'client' {e}"))
}

fn print_verdict(verdict: &BaselineVerdict) {
    let list = |title: &str, entries: &[String]| {
        if !entries.is_empty() {
            println!("\n{title}:");
            for entry in entries {
                println!("  - {entry}");
            }
        }
    };
    list("Expected failures (in the baseline)", &verdict.expected);
    list(
        "Unexpected failures (not in the baseline)",
        &verdict.unexpected,
    );
    list(
        "Stale baseline entries (they pass now: remove them)",
        &verdict.stale,
    );
    if verdict.passed() {
        println!("\nThe run is as the baseline expects.");
    }
}

/// `DIR/NAME/checks.json`, `stdout.txt` and `stderr.txt`, as the suite writes them.
fn write(dir: &Path, report: &Report) -> std::io::Result<()> {
    let at = dir.join(&report.scenario);
    std::fs::create_dir_all(&at)?;
    let checks = serde_json::to_vec_pretty(&report.checks).map_err(std::io::Error::other)?;
    std::fs::write(at.join("checks.json"), checks)?;
    let (stdout, stderr) = report
        .client
        .as_ref()
        .map(|c| (c.stdout.as_str(), c.stderr.as_str()))
        .unwrap_or_default();
    std::fs::write(at.join("stdout.txt"), stdout)?;
    std::fs::write(at.join("stderr.txt"), stderr)
}

/// A JUnit report: one suite, a test case per scenario run (`NAME@VERSION`), failed ones
/// with their table of failed checks.
fn write_junit(path: &Path, reports: &[Report], times: &[Duration]) -> std::io::Result<()> {
    use quick_junit::{NonSuccessKind, TestCase, TestCaseStatus, TestSuite};

    let mut suite = TestSuite::new("client scenarios");
    for (report, time) in reports.iter().zip(times) {
        let status = if report.passed() {
            TestCaseStatus::success()
        } else {
            let mut status = TestCaseStatus::non_success(NonSuccessKind::Failure);
            let failures = report.failures();
            let message = match (failures.first(), report.client_problem()) {
                (_, Some(problem)) => problem,
                (Some(check), None) => format!(
                    "{} {}{}",
                    check.status.as_str(),
                    check.id,
                    check
                        .error_message
                        .as_deref()
                        .map(|m| format!(": {m}"))
                        .unwrap_or_default()
                ),
                (None, None) => "the scenario failed".to_string(),
            };
            status.set_message(message).set_description(report.table());
            status
        };
        let name = format!("{}@{}", report.scenario, report.spec_version.as_str());
        let mut case = TestCase::new(name, status);
        case.set_classname("mcp-decoy.check-client").set_time(*time);
        if let Some(client) = &report.client {
            case.set_system_out(client.stdout.as_str())
                .set_system_err(client.stderr.as_str());
        }
        suite.add_test_case(case);
    }
    let mut junit = quick_junit::Report::new("mcp-decoy check-client");
    junit.add_test_suite(suite);
    let xml = junit.to_string().map_err(std::io::Error::other)?;
    std::fs::write(path, xml)
}
