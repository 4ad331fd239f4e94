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
    fn splitext_like_python() {
        assert_eq!(splitext("/a/b.tar.gz"), ("/a/b.tar", ".gz"));
        assert_eq!(splitext("/a/.bashrc"), ("/a/.bashrc", ""));
        assert_eq!(splitext("/a.b/c"), ("/a.b/c", ""));
        assert_eq!(splitext("x.PNG"), ("x", ".PNG"));
    }
}
