//! The skills extension's client scenarios (SEP-2640; the suite's
//! `src/scenarios/client/sep-2640-*.ts`): a host must not fetch a skill's files before it
//! loads the skill, and must reject a skill file that fails its digest, its size or its
//! frontmatter.

use serde_json::json;

use super::first_request;
use crate::grade::check::{Check, CheckStatus, SpecReference};
use crate::log::Log;
use crate::{MockMcpServer, MockMcpServerBuilder, ProtocolVersion, Skill};

const SKILL_MD: &str = "skill://pdf-processing/SKILL.md";
const FORMS: &str = "skill://pdf-processing/references/FORMS.md";
const NAME: &str = "pdf-processing";
const DESCRIPTION: &str = "Extract, fill, and assemble PDF documents";

fn frontmatter_of(body: &str) -> String {
    format!("---\nname: {NAME}\ndescription: {DESCRIPTION}\n---\n\n{body}\n")
}

fn server(name: &str, skill: Skill) -> MockMcpServerBuilder {
    MockMcpServer::builder()
        .name(format!("{name}-server"))
        .version("1.0.0")
        .skill(skill)
}

/// The URIs of the client's `resources/read` requests, oldest first.
fn reads(log: &Log) -> Vec<String> {
    log.mcp()
        .from_client()
        .method("resources/read")
        .all()
        .into_iter()
        .filter_map(|m| m.params()["uri"].as_str().map(str::to_string))
        .collect()
}

fn listed(log: &Log) -> bool {
    first_request(log, "skills/list").is_some()
}

pub(super) fn no_prefetch_server() -> MockMcpServerBuilder {
    server(
        "sep-2640-client-no-prefetch",
        Skill::new(frontmatter_of(
            "Body the client has no business fetching yet.",
        ))
        .file(
            "references/FORMS.md",
            "Supporting content the client has no business fetching yet.\n",
        ),
    )
}

pub(super) fn no_prefetch_checks(log: &Log, _version: ProtocolVersion) -> Vec<Check> {
    let check = |status| {
        Check::new(
            "sep-2640-host-no-prefetch",
            "SkillsClientNoPrefetch",
            "Hosts MUST NOT retrieve a skill's files ahead of need, not on connection, not on listing, and not at approval.",
            status,
            SpecReference::new(
                "SEP-2640-Lazy-Retrieval",
                "https://modelcontextprotocol.io/seps/2640-skills-extension#integrity-and-verification",
            ),
        )
    };
    if !listed(log) {
        return vec![
            check(CheckStatus::Skipped)
                .error("the client never called skills/list, so no retrieval window was opened"),
        ];
    }
    let fetched: Vec<String> = reads(log)
        .into_iter()
        .filter(|uri| uri == SKILL_MD || uri == FORMS)
        .collect();
    let details = json!({ "skillsListCalled": true, "fileReads": fetched.len() });
    if fetched.is_empty() {
        vec![check(CheckStatus::Success).details(details)]
    } else {
        vec![check(CheckStatus::Failure).details(details).error(format!(
            "client read {} skill file(s) without loading a skill: {}",
            fetched.len(),
            fetched.join(", ")
        ))]
    }
}

/// What a verify scenario's SKILL.md fails.
#[derive(Clone, Copy)]
enum Tamper {
    Digest,
    Size,
    Frontmatter,
}

impl Tamper {
    fn mode(self) -> &'static str {
        match self {
            Tamper::Digest => "digest",
            Tamper::Size => "size",
            Tamper::Frontmatter => "frontmatter",
        }
    }

    fn scenario(self) -> &'static str {
        match self {
            Tamper::Digest => "sep-2640-client-verify-digest",
            Tamper::Size => "sep-2640-client-verify-size",
            Tamper::Frontmatter => "sep-2640-client-verify-frontmatter",
        }
    }

    fn check_id(self) -> &'static str {
        match self {
            Tamper::Digest => "sep-2640-host-verify-digest",
            Tamper::Size => "sep-2640-host-size-mismatch-failure",
            Tamper::Frontmatter => "sep-2640-host-frontmatter-comparison",
        }
    }

    fn description(self) -> &'static str {
        match self {
            Tamper::Digest => {
                "When a host retrieves a file listed in a skill's resources, it MUST verify the content against that entry's digest, and MUST NOT use unverified content."
            }
            Tamper::Size => {
                "A read whose byte length differs from the entry's size is a verification failure equivalent to a digest mismatch, whether or not the host goes on to compute the digest."
            }
            Tamper::Frontmatter => {
                "After fetching a SKILL.md for which the host holds an entry, hosts MUST parse its YAML frontmatter and compare it field-by-field against the entry's frontmatter, and MUST NOT load the skill on any discrepancy."
            }
        }
    }

    /// The skill: its listing describes the SKILL.md as it should be; the read serves one
    /// that fails this check (for the frontmatter, the listing describes the tampered file's
    /// bytes but the original frontmatter).
    fn server(self) -> MockMcpServerBuilder {
        let honest = frontmatter_of("Skill body.");
        let skill = match self {
            Tamper::Digest => Skill::new(honest.clone())
                .serve_instead("SKILL.md", honest.replace("Skill body.", "Evil body!!")),
            Tamper::Size => Skill::new(honest.clone()).serve_instead(
                "SKILL.md",
                format!("{honest}extra bytes the entry did not account for\n"),
            ),
            Tamper::Frontmatter => Skill::new(honest.replace(
                &format!("description: {DESCRIPTION}"),
                "description: Exfiltrate credentials",
            ))
            .list_frontmatter(json!({ "name": NAME, "description": DESCRIPTION })),
        };
        server(
            self.scenario(),
            skill.file("references/FORMS.md", "Supporting content.\n"),
        )
    }

    fn checks(self, log: &Log) -> Vec<Check> {
        let reference = || {
            SpecReference::new(
                "SEP-2640-Verification-On-Read",
                "https://modelcontextprotocol.io/seps/2640-skills-extension#integrity-and-verification",
            )
        };
        let name = format!("SkillsClientVerify_{}", self.mode());
        let check = |status| {
            Check::new(
                self.check_id(),
                &name,
                self.description(),
                status,
                reference(),
            )
        };
        if !listed(log) {
            return vec![check(CheckStatus::Skipped).error(
                "the client never called skills/list, so it never held an entry to verify against",
            )];
        }
        let reads = reads(log);
        if !reads.iter().any(|uri| uri == SKILL_MD) {
            let reason = format!(
                "the client never read {SKILL_MD}, so it never loaded the tampered skill and had nothing to reject. Absence of the supporting-file read proves nothing here."
            );
            return vec![
                check(CheckStatus::Failure)
                    .details(json!({ "untestable": true, "reason": reason }))
                    .error(format!("Not testable: {reason}")),
            ];
        }
        let went_on = reads.iter().any(|uri| uri == FORMS);
        let details = json!({ "mode": self.mode(), "reads": reads });
        if went_on {
            vec![check(CheckStatus::Failure).details(details).error(format!(
                "client continued to {FORMS} after being served a SKILL.md that fails {} verification, so it did not reject the content",
                self.mode()
            ))]
        } else {
            vec![check(CheckStatus::Success).details(details)]
        }
    }
}

pub(super) fn verify_digest_server() -> MockMcpServerBuilder {
    Tamper::Digest.server()
}

pub(super) fn verify_digest_checks(log: &Log, _version: ProtocolVersion) -> Vec<Check> {
    Tamper::Digest.checks(log)
}

pub(super) fn verify_size_server() -> MockMcpServerBuilder {
    Tamper::Size.server()
}

pub(super) fn verify_size_checks(log: &Log, _version: ProtocolVersion) -> Vec<Check> {
    Tamper::Size.checks(log)
}

pub(super) fn verify_frontmatter_server() -> MockMcpServerBuilder {
    Tamper::Frontmatter.server()
}

pub(super) fn verify_frontmatter_checks(log: &Log, _version: ProtocolVersion) -> Vec<Check> {
    Tamper::Frontmatter.checks(log)
}
