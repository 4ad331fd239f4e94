//! Magic-byte sniffing as Python's `filetype.guess` does it for the image
//! matchers, in its order. Those come first in `filetype`'s list, so when
//! none matches the guess is not an image, whatever else it is.

/// The MIME type `filetype.guess` gives when it is one of its image types
/// (plus `application/dicom`, which it files among the images).
pub fn sniff_mime(bytes: &[u8]) -> Option<&'static str> {
    let buf = &bytes[..bytes.len().min(8192)];
    let at = |i: usize| buf.get(i).copied();
    let starts = |sig: &[u8]| buf.starts_with(sig);
    let tiff_header =
        buf.len() > 9 && (starts(&[0x49, 0x49, 0x2A, 0x00]) || starts(&[0x4D, 0x4D, 0x00, 0x2A]));
    let cr = at(8) == Some(0x43) && at(9) == Some(0x52);
    if starts(&[0x41, 0x43, 0x31, 0x30]) {
        return Some("image/vnd.dwg");
    }
    if starts(b"gimp xcf v") {
        return Some("image/x-xcf");
    }
    if buf.len() > 2 && starts(&[0xFF, 0xD8, 0xFF]) {
        return Some("image/jpeg");
    }
    if buf.len() > 50 && starts(&[0, 0, 0, 0x0C]) && buf.get(16..24) == Some(b"ftypjp2 ") {
        return Some("image/jpx");
    }
    if is_apng(buf) {
        return Some("image/apng");
    }
    if buf.len() > 3 && starts(&[0x89, 0x50, 0x4E, 0x47]) {
        return Some("image/png");
    }
    if buf.len() > 2 && starts(b"GIF") {
        return Some("image/gif");
    }
    if buf.len() > 13 && starts(b"RIFF") && buf.get(8..14) == Some(b"WEBPVP") {
        return Some("image/webp");
    }
    if tiff_header && !cr {
        return Some("image/tiff");
    }
    if tiff_header && cr {
        return Some("image/x-canon-cr2");
    }
    if buf.len() > 1 && starts(b"BM") {
        return Some("image/bmp");
    }
    if buf.len() > 2 && starts(&[0x49, 0x49, 0xBC]) {
        return Some("image/vnd.ms-photo");
    }
    if buf.len() > 3 && starts(b"8BPS") {
        return Some("image/vnd.adobe.photoshop");
    }
    if buf.len() > 3 && starts(&[0, 0, 1, 0]) {
        return Some("image/x-icon");
    }
    if let Some((major, brands)) = iso_bmff(buf) {
        if major == "heic"
            || (matches!(major.as_str(), "mif1" | "msf1") && brands.iter().any(|b| b == "heic"))
        {
            return Some("image/heic");
        }
    }
    if buf.len() > 132 && buf.get(128..132) == Some(b"DICM") {
        return Some("application/dicom");
    }
    if let Some((major, brands)) = iso_bmff(buf) {
        if major == "avif"
            || (matches!(major.as_str(), "mif1" | "msf1") && brands.iter().any(|b| b == "avif"))
        {
            return Some("image/avif");
        }
    }
    None
}

fn is_apng(buf: &[u8]) -> bool {
    if !(buf.len() > 8 && buf.starts_with(&[0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])) {
        return false;
    }
    let mut i = 8usize;
    while buf.len() > i {
        let len_bytes = buf.get(i..(i + 4).min(buf.len())).unwrap_or(&[]);
        let length = len_bytes
            .iter()
            .fold(0usize, |acc, b| (acc << 8) | *b as usize);
        i += 4;
        let chunk = buf
            .get(i.min(buf.len())..(i + 4).min(buf.len()))
            .unwrap_or(&[]);
        let chunk: String = chunk
            .iter()
            .filter(|b| b.is_ascii())
            .map(|b| *b as char)
            .collect();
        i += 4;
        match chunk.as_str() {
            "IDAT" | "IEND" => return false,
            "acTL" => return true,
            _ => {}
        }
        i = i.saturating_add(length).saturating_add(4);
    }
    false
}

/// (major brand, compatible brands) of an ISO-BMFF `ftyp` box.
fn iso_bmff(buf: &[u8]) -> Option<(String, Vec<String>)> {
    if buf.len() < 16 || buf.get(4..8) != Some(b"ftyp") {
        return None;
    }
    let ftyp_len = u32::from_be_bytes([buf[0], buf[1], buf[2], buf[3]]) as usize;
    if buf.len() < ftyp_len {
        return None;
    }
    let text = |b: &[u8]| String::from_utf8_lossy(b).replace('\u{FFFD}', "");
    let major = text(&buf[8..12]);
    let brands = (16..ftyp_len)
        .step_by(4)
        .map(|i| text(&buf[i..(i + 4).min(buf.len())]))
        .collect();
    Some((major, brands))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sniffs_common_images() {
        assert_eq!(
            sniff_mime(&[
                0x89, b'P', b'N', b'G', 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 0, b'I', b'H', b'D', b'R'
            ]),
            Some("image/png")
        );
        assert_eq!(sniff_mime(&[0xFF, 0xD8, 0xFF, 0xE0]), Some("image/jpeg"));
        assert_eq!(sniff_mime(b"GIF89a"), Some("image/gif"));
        assert_eq!(sniff_mime(b"plain text"), None);
    }
}
