//! `mcp-decoy check-client -- COMMAND`: grades a client program with the conformance suite's
//! client scenarios (`crate::grade`), one run per scenario, and prints a line per scenario
//! as it finishes and the failing checks at the end; `-o DIR` writes what the suite writes.

use std::path::Path;

use super::CheckClientArgs;
use crate::grade::{ClientCommand, Report, Scenario};

/// Runs the scenarios and returns the process's exit status: 0 when every scenario run
/// passed, 1 when one failed, 2 for a usage error.
pub async fn run(args: &CheckClientArgs) -> i32 {
    let Some((program, rest)) = args.command.split_first() else {
        eprintln!("mcp-decoy check-client: name the client command after `--`");
        return 2;
    };
    let scenarios = match chosen(&args.scenarios) {
        Ok(scenarios) => scenarios,
        Err(unknown) => {
            let known: Vec<&str> = Scenario::all().iter().map(Scenario::name).collect();
            eprintln!(
                "mcp-decoy check-client: no scenario `{unknown}`; the graded ones: {}",
                known.join(", ")
            );
            return 2;
        }
    };
    let client = ClientCommand::new(program).args(rest).timeout(args.timeout);
    let mut reports = Vec::new();
    for scenario in scenarios {
        let version = args.spec_version.unwrap_or(scenario.default_version());
        if !scenario.applies_at(version) {
            println!(
                "SKIPPED  {:<28} {} (the scenario does not apply at this revision)",
                scenario.name(),
                version.as_str()
            );
            continue;
        }
        eprintln!("running {} at {} ...", scenario.name(), version.as_str());
        let graded = scenario.start_at(version).await;
        let report = graded.run(&client).await;
        println!(
            "{:<8} {:<28} {}",
            if report.passed() { "PASSED" } else { "FAILED" },
            scenario.name(),
            version.as_str()
        );
        if let Some(dir) = &args.output_dir
            && let Err(error) = write(dir, &report)
        {
            eprintln!(
                "mcp-decoy check-client: cannot write {}: {error}",
                dir.display()
            );
            return 1;
        }
        reports.push(report);
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
    i32::from(!failed.is_empty())
}

/// The scenarios named, in order, or every graded one; the first unknown name otherwise.
fn chosen(names: &[String]) -> Result<Vec<Scenario>, String> {
    if names.is_empty() {
        return Ok(Scenario::all());
    }
    names
        .iter()
        .map(|name| Scenario::named(name).ok_or_else(|| name.clone()))
        .collect()
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
