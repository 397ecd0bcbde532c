//! The YAML frontmatter of a `SKILL.md` (the Agent Skills format: a `---` line, YAML, a
//! `---` line), as the JSON object `skills/list` renders it verbatim.

use serde_json::{Map, Number, Value};
use yaml_rust2::parser::{Event, Parser};
use yaml_rust2::{Yaml, YamlLoader};

/// Nesting the conversion follows; deeper frontmatter is refused, not recursed into.
const MAX_DEPTH: usize = 32;

/// The frontmatter of `text` as a JSON object, or what is wrong with it.
pub(crate) fn parse(text: &str) -> Result<Map<String, Value>, String> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let body = text
        .strip_prefix("---\n")
        .or_else(|| text.strip_prefix("---\r\n"))
        .ok_or("does not begin with a `---` line opening its YAML frontmatter")?;
    let end = closing(body).ok_or("has no `---` line closing its YAML frontmatter")?;
    let yaml = &body[..end];
    screen(yaml)?;
    let docs = YamlLoader::load_from_str(yaml)
        .map_err(|e| format!("has invalid YAML frontmatter: {e}"))?;
    let value = match docs.into_iter().next() {
        Some(doc) => json(doc, 0)?,
        None => Value::Object(Map::new()),
    };
    let Value::Object(map) = value else {
        return Err("has frontmatter that is not a YAML mapping".into());
    };
    Ok(map)
}

/// Where the closing `---` line starts in `body` (the text after the opening line).
fn closing(body: &str) -> Option<usize> {
    let mut at = 0;
    for line in body.split_inclusive('\n') {
        if line
            .trim_end_matches(['\r', '\n'])
            .trim_end_matches([' ', '\t'])
            == "---"
        {
            return Some(at);
        }
        at += line.len();
    }
    None
}

/// Reads the events before the loader builds anything: it copies an anchor's value at each
/// alias, so a few lines of aliases of aliases grow exponentially (frontmatter has no use
/// for them), and it builds and drops nested values by recursion, so depth is bounded here.
fn screen(yaml: &str) -> Result<(), String> {
    let mut parser = Parser::new_from_str(yaml);
    let mut depth = 0usize;
    loop {
        match parser.next_token() {
            Ok((Event::StreamEnd, _)) => return Ok(()),
            Ok((Event::SequenceStart(..) | Event::MappingStart(..), _)) => {
                depth += 1;
                if depth > MAX_DEPTH {
                    return Err(format!(
                        "has frontmatter nested deeper than {MAX_DEPTH} levels"
                    ));
                }
            }
            Ok((Event::SequenceEnd | Event::MappingEnd, _)) => depth = depth.saturating_sub(1),
            Ok((Event::Alias(_), mark)) => {
                return Err(format!(
                    "has a YAML alias in its frontmatter (line {}), which skills do not take",
                    mark.line()
                ));
            }
            Ok(_) => {}
            Err(e) => return Err(format!("has invalid YAML frontmatter: {e}")),
        }
    }
}

fn json(yaml: Yaml, depth: usize) -> Result<Value, String> {
    if depth > MAX_DEPTH {
        return Err(format!(
            "has frontmatter nested deeper than {MAX_DEPTH} levels"
        ));
    }
    Ok(match yaml {
        Yaml::String(s) => Value::String(s),
        Yaml::Boolean(b) => Value::Bool(b),
        Yaml::Integer(i) => Value::Number(i.into()),
        Yaml::Real(text) => text
            .parse::<f64>()
            .ok()
            .and_then(Number::from_f64)
            .map(Value::Number)
            // `.inf` and `.nan` have no JSON number: kept as the text they were written as.
            .unwrap_or(Value::String(text)),
        Yaml::Null => Value::Null,
        Yaml::Array(items) => Value::Array(
            items
                .into_iter()
                .map(|item| json(item, depth + 1))
                .collect::<Result<_, _>>()?,
        ),
        Yaml::Hash(hash) => {
            let mut map = Map::new();
            for (key, value) in hash {
                let key = match key {
                    Yaml::String(s) => s,
                    Yaml::Integer(i) => i.to_string(),
                    Yaml::Boolean(b) => b.to_string(),
                    Yaml::Real(r) => r,
                    other => {
                        return Err(format!(
                            "has a frontmatter key that is not a scalar: {other:?}"
                        ));
                    }
                };
                map.insert(key, json(value, depth + 1)?);
            }
            Value::Object(map)
        }
        Yaml::Alias(_) | Yaml::BadValue => {
            return Err("has a frontmatter value YAML cannot read".into());
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn reads_the_agent_skills_fields_as_json() {
        let text = "---\nname: pdf-processing\ndescription: Extract, fill, and assemble PDF documents\nlicense: MIT\nmetadata:\n  version: \"1.2\"\n  stars: 4\nallowed-tools: [Read, Bash]\n---\n\nBody.\n";
        assert_eq!(
            Value::Object(parse(text).expect("frontmatter")),
            json!({
                "name": "pdf-processing",
                "description": "Extract, fill, and assemble PDF documents",
                "license": "MIT",
                "metadata": { "version": "1.2", "stars": 4 },
                "allowed-tools": ["Read", "Bash"]
            })
        );
    }

    #[test]
    fn refuses_what_is_not_frontmatter_saying_why() {
        let cases = [
            ("# no frontmatter\n", "does not begin with a `---` line"),
            ("---\nname: x\n", "no `---` line closing"),
            ("---\n- a\n- b\n---\n", "not a YAML mapping"),
            ("---\nname: [\n---\n", "invalid YAML"),
            (
                "---\na: &x [1]\nb: *x\n---\n",
                "YAML alias in its frontmatter (line 2)",
            ),
        ];
        for (text, expected) in cases {
            let error = parse(text).expect_err(text);
            assert!(error.contains(expected), "{text:?}: {error}");
        }
        let deep = format!("---\na: {}{}\n---\n", "[".repeat(40), "]".repeat(40));
        assert!(parse(&deep).expect_err("deep").contains("deeper than 32"));
    }
}
