//! `urllib.parse.urlparse(url).scheme` and `posixpath.splitext`.

/// The scheme Python's `urlparse` finds: lower-cased, `""` when none.
pub fn url_scheme(url: &str) -> String {
    let url: String = url
        .trim_start_matches(|c: char| c <= ' ')
        .chars()
        .filter(|c| !matches!(c, '\t' | '\r' | '\n'))
        .collect();
    let Some(i) = url.find(':') else {
        return String::new();
    };
    let candidate = &url[..i];
    let first_ok = candidate
        .chars()
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic());
    if i > 0
        && first_ok
        && candidate
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.'))
    {
        candidate.to_ascii_lowercase()
    } else {
        String::new()
    }
}

/// The `host[:port]` of an `http(s)://` URL, lower-cased (user info
/// dropped); `None` when it has none.
pub fn url_host(url: &str) -> Option<String> {
    let (_, rest) = url.trim().split_once("://")?;
    let authority = rest.split(['/', '?', '#']).next().unwrap_or("");
    let host = authority.rsplit_once('@').map_or(authority, |(_, h)| h);
    (!host.is_empty()).then(|| host.to_ascii_lowercase())
}

/// Where a `Location` header leads from `base` (an absolute URL, a
/// scheme-relative `//host/path`, an absolute path or a relative one).
pub fn join_url(base: &str, location: &str) -> String {
    let location = location.trim();
    if location.contains("://") && !url_scheme(location).is_empty() {
        return location.to_string();
    }
    let (scheme, rest) = base.split_once("://").unwrap_or(("http", base));
    if let Some(rest_of_location) = location.strip_prefix("//") {
        return format!("{scheme}://{rest_of_location}");
    }
    let authority_end = rest.find(['/', '?', '#']).unwrap_or(rest.len());
    let origin = format!("{scheme}://{}", &rest[..authority_end]);
    if location.starts_with('/') {
        return format!("{origin}{location}");
    }
    let path = rest[authority_end..].split(['?', '#']).next().unwrap_or("");
    let dir = path.rfind('/').map_or("/", |i| &path[..=i]);
    format!("{origin}{dir}{location}")
}

/// `posixpath.splitext(p)`: (root, ext), leading dots of the name ignored.
pub fn splitext(p: &str) -> (&str, &str) {
    let sep = p.rfind('/').map_or(0, |i| i + 1);
    if let Some(dot) = p.rfind('.') {
        if dot > sep && p[sep..dot].chars().any(|c| c != '.') {
            return (&p[..dot], &p[dot..]);
        }
    }
    (p, "")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn schemes_like_python() {
        assert_eq!(url_scheme("https://x/y.png"), "https");
        assert_eq!(url_scheme("C:/x.png"), "c");
        assert_eq!(url_scheme("data:image/png;base64,AA"), "data");
        assert_eq!(url_scheme("../media/x.png"), "");
        assert_eq!(url_scheme("/abs/x.png"), "");
        assert_eq!(url_scheme("1ab:x"), "");
    }

    #[test]
    fn hosts_and_redirect_targets() {
        assert_eq!(
            url_host("https://User@Example.COM:8080/x?y").as_deref(),
            Some("example.com:8080")
        );
        assert_eq!(url_host("../x.png"), None);
        let base = "http://a.test:1/img/x.png?q=1";
        assert_eq!(join_url(base, "https://b.test/y"), "https://b.test/y");
        assert_eq!(join_url(base, "//c.test/z"), "http://c.test/z");
        assert_eq!(join_url(base, "/root.png"), "http://a.test:1/root.png");
        assert_eq!(join_url(base, "y.png"), "http://a.test:1/img/y.png");
    }

    #[test]
    fn splitext_like_python() {
        assert_eq!(splitext("/a/b.tar.gz"), ("/a/b.tar", ".gz"));
        assert_eq!(splitext("/a/.bashrc"), ("/a/.bashrc", ""));
        assert_eq!(splitext("/a.b/c"), ("/a.b/c", ""));
        assert_eq!(splitext("x.PNG"), ("x", ".PNG"));
    }
}
