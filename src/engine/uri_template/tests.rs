use super::*;

fn template(text: &str) -> UriTemplate {
    UriTemplate::parse(text).unwrap_or_else(|e| panic!("{text} should parse: {e}"))
}

fn vars(pairs: &[(&str, &str)]) -> BTreeMap<String, String> {
    pairs
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect()
}

#[test]
fn a_reserved_path_takes_every_remaining_segment() {
    let t = template("file:///{+path}");
    assert_eq!(
        t.matches("file:///project/src/main.rs"),
        Some(vars(&[("path", "project/src/main.rs")]))
    );
    assert_eq!(t.matches("file:///"), None, "an empty path names nothing");
    assert_eq!(t.matches("http://example.com/a"), None);
}

#[test]
fn a_simple_variable_is_one_segment() {
    let t = template("test://template/{id}/data");
    assert_eq!(
        t.matches("test://template/123/data"),
        Some(vars(&[("id", "123")]))
    );
    assert_eq!(t.matches("test://template/1/2/data"), None);
    assert_eq!(t.matches("test://template//data"), None);
    assert_eq!(t.matches("test://template/123/data/more"), None);
    assert_eq!(t.matches("test://template/123"), None);
}

#[test]
fn several_variables_in_a_template_and_in_one_expression() {
    let t = template("db://{schema}/{table}/rows{?limit,offset}");
    assert_eq!(
        t.matches("db://public/users/rows?limit=10&offset=20"),
        Some(vars(&[
            ("schema", "public"),
            ("table", "users"),
            ("limit", "10"),
            ("offset", "20")
        ]))
    );
    assert_eq!(
        t.matches("db://public/users/rows"),
        Some(vars(&[("schema", "public"), ("table", "users")])),
        "query variables are optional"
    );
    assert_eq!(t.matches("db://public/users/rows?page=2"), None);

    let pair = template("map://{x,y}");
    assert_eq!(
        pair.matches("map://3,4"),
        Some(vars(&[("x", "3"), ("y", "4")]))
    );
    assert_eq!(pair.expand(&vars(&[("x", "3"), ("y", "4")])), "map://3,4");
}

#[test]
fn values_are_percent_decoded() {
    let t = template("test://notes/{title}");
    assert_eq!(
        t.matches("test://notes/hello%20world%2Fbye%C3%A9"),
        Some(vars(&[("title", "hello world/byeé")]))
    );
    assert_eq!(
        t.matches("test://notes/100%"),
        Some(vars(&[("title", "100%")])),
        "a stray % stays as it is"
    );
}

#[test]
fn a_fragment_and_other_operators_match_their_prefixes() {
    let t = template("doc://{name}{#section}");
    assert_eq!(
        t.matches("doc://guide#intro/part"),
        Some(vars(&[("name", "guide"), ("section", "intro/part")]))
    );
    assert_eq!(t.matches("doc://guide"), Some(vars(&[("name", "guide")])));

    let path = template("api://v1{/resource,id}{;format}");
    assert_eq!(
        path.matches("api://v1/users/42;format=json"),
        Some(vars(&[
            ("resource", "users"),
            ("id", "42"),
            ("format", "json")
        ]))
    );
}

#[test]
fn expansion_encodes_by_operator() {
    let values = vars(&[("path", "a b/c"), ("q", ""), ("name", "x")]);
    assert_eq!(
        template("file:///{path}").expand(&values),
        "file:///a%20b%2Fc"
    );
    assert_eq!(
        template("file:///{+path}").expand(&values),
        "file:///a%20b/c"
    );
    assert_eq!(template("x:{#path}").expand(&values), "x:#a%20b/c");
    assert_eq!(
        template("x:/{name}{?q,name,missing}").expand(&values),
        "x:/x?q=&name=x"
    );
    assert_eq!(template("x:{;q,name}").expand(&values), "x:;q;name=x");
    assert_eq!(template("x:{.name}{/name}").expand(&values), "x:.x/x");
    assert_eq!(template("x:{missing}").expand(&values), "x:");
}

#[test]
fn expanding_then_matching_gives_the_values_back() {
    let t = template("file:///{+root}/notes/{title}{?tag}");
    let values = vars(&[("root", "home/ann"), ("title", "to do: 1€"), ("tag", "a&b")]);
    let uri = t.expand(&values);
    assert_eq!(t.matches(&uri), Some(values));
}

#[test]
fn a_repeated_variable_must_have_one_value() {
    let t = template("test://{id}/copy/{id}");
    assert_eq!(t.matches("test://7/copy/7"), Some(vars(&[("id", "7")])));
    assert_eq!(t.matches("test://7/copy/8"), None);
}

#[test]
fn malformed_templates_name_the_position() {
    let cases = [
        ("test://template/{id/data", 16, "no closing"),
        ("test://{a{b}}", 7, "no closing"),
        ("test://a}", 8, "without a matching"),
        ("test://{}", 7, "empty expression"),
        ("test://{=x}", 8, "reserved"),
        ("test://{x,}", 10, "missing variable name"),
        ("test://{list*}", 12, "explode"),
        ("test://{name:3}", 12, "prefix"),
        ("test://{na-me}", 10, "'-' is not allowed"),
    ];
    for (text, position, reason) in cases {
        let err = UriTemplate::parse(text).expect_err(text);
        assert_eq!(err.position, position, "{text}: {err}");
        assert!(err.to_string().contains(reason), "{text}: {err}");
    }
}

#[test]
fn variables_are_listed_once_in_order() {
    assert_eq!(
        template("x://{a}/{+b}{?c,a}").variables(),
        vec!["a", "b", "c"]
    );
    assert!(template("test://static").variables().is_empty());
}

#[test]
fn a_template_without_expressions_matches_only_itself() {
    let t = template("test://static-text");
    assert_eq!(t.matches("test://static-text"), Some(BTreeMap::new()));
    assert_eq!(t.matches("test://static-text2"), None);
}
