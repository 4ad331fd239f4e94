//! Media in a formatted request, costed by each provider's documented rule
//! instead of counting base64 as text (a 1 MB data URL would be ~585k
//! "tokens"). Sizes come from the image header (inline data or a local
//! file); a web URL is never fetched here, so its size is assumed.

use super::models::Template;
use crate::media::Gate;
use base64::Engine;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MediaKind {
    Image,
    Audio,
    Video,
}

/// Where a media item's bytes are.
#[derive(Debug, Clone, PartialEq)]
pub enum MediaSource<'a> {
    /// Base64 data (from a data URL, an Anthropic/Gemini block, Ollama images).
    Base64(&'a str),
    /// A local path or `file://` URL.
    Path(&'a str),
    /// A web URL, or anything else: size unknown.
    Remote,
}

impl<'a> MediaSource<'a> {
    /// A URL or path as the formatters write them.
    pub fn from_url(url: &'a str) -> MediaSource<'a> {
        if let Some(rest) = url.strip_prefix("data:") {
            match rest.split_once("base64,") {
                Some((_, data)) => MediaSource::Base64(data),
                None => MediaSource::Remote,
            }
        } else if url.starts_with("http://") || url.starts_with("https://") {
            MediaSource::Remote
        } else {
            MediaSource::Path(url.strip_prefix("file://").unwrap_or(url))
        }
    }
}

/// What is known about one media item.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct MediaFacts {
    pub kind: MediaKind,
    pub size: Option<(u64, u64)>,
    pub seconds: Option<f64>,
}

/// Reads what the header tells (image size, WAV duration; other audio by
/// byte length at 128 kbit/s).
/// Local files are read through `media` (a few KB of header; only
/// regular files the gate allows), else not at all.
pub fn facts(kind: MediaKind, source: &MediaSource<'_>, media: Option<&Gate>) -> MediaFacts {
    let (head, total_len) = match source {
        MediaSource::Base64(data) => (decode_prefix(data), Some(data.len() as u64 * 3 / 4)),
        MediaSource::Path(path) => {
            match media.and_then(|g| g.read_header(&g.resolve(path), PREFIX as u64)) {
                Some((head, len)) => (Some(head), Some(len)),
                None => (None, None),
            }
        }
        MediaSource::Remote => (None, None),
    };
    let size = match kind {
        MediaKind::Image => head
            .as_deref()
            .and_then(|b| imagesize::blob_size(b).ok())
            .map(|s| (s.width as u64, s.height as u64)),
        _ => None,
    };
    let seconds = match kind {
        MediaKind::Audio => head
            .as_deref()
            .and_then(wav_seconds)
            .or_else(|| total_len.map(|n| n as f64 / 16_000.0)),
        _ => None,
    };
    MediaFacts {
        kind,
        size,
        seconds,
    }
}

const PREFIX: usize = 64 * 1024;

fn decode_prefix(data: &str) -> Option<Vec<u8>> {
    // Base64 is ASCII; anything else fails to decode below anyway.
    let head = data.get(..data.len().min(PREFIX / 3 * 4)).unwrap_or(data);
    let mut chunk: Vec<u8> = head.bytes().filter(|b| !b.is_ascii_whitespace()).collect();
    chunk.truncate(chunk.len() / 4 * 4);
    base64::engine::general_purpose::STANDARD
        .decode(&chunk)
        .ok()
}

/// A RIFF/WAVE header's duration: data bytes over the byte rate.
fn wav_seconds(bytes: &[u8]) -> Option<f64> {
    if bytes.len() < 44 || &bytes[0..4] != b"RIFF" || &bytes[8..12] != b"WAVE" {
        return None;
    }
    let mut byte_rate = None;
    let mut pos = 12;
    while pos + 8 <= bytes.len() {
        let id = &bytes[pos..pos + 4];
        let len = u32::from_le_bytes(bytes[pos + 4..pos + 8].try_into().ok()?) as usize;
        if id == b"fmt " && pos + 20 <= bytes.len() {
            byte_rate = Some(u32::from_le_bytes(
                bytes[pos + 16..pos + 20].try_into().ok()?,
            ));
        }
        if id == b"data" {
            let rate = byte_rate.filter(|r| *r > 0)?;
            return Some(len as f64 / rate as f64);
        }
        pos += 8 + len + (len & 1);
    }
    None
}

/// Assumed when a size or duration cannot be read.
pub const ASSUMED_IMAGE: (u64, u64) = (1024, 1024);
pub const ASSUMED_SECONDS: f64 = 10.0;

/// Tokens for one media item under `template` (and `model`, for OpenAI's
/// per-model image rates), and whether anything had to be assumed.
pub fn media_tokens(template: Template, model: &str, facts: &MediaFacts) -> (i64, bool) {
    let assumed = match facts.kind {
        MediaKind::Image => facts.size.is_none(),
        _ => facts.seconds.is_none(),
    };
    let (w, h) = facts.size.unwrap_or(ASSUMED_IMAGE);
    let secs = facts.seconds.unwrap_or(ASSUMED_SECONDS);
    let n = match (template, facts.kind) {
        (Template::OpenAi, MediaKind::Image) => openai_image(model, w, h),
        // gpt-4o audio input: about one token per 100 ms.
        (Template::OpenAi, _) => (secs * 10.0).ceil() as i64,
        (Template::ChatMl, MediaKind::Image) => qwen_image(w, h),
        // Qwen-Audio / Omni: 25 tokens per second.
        (Template::ChatMl, MediaKind::Audio) => (secs * 25.0).ceil() as i64,
        // Qwen-VL video: 2 frames a second, two frames per temporal patch,
        // each patch like a 640×360 image.
        (Template::ChatMl, MediaKind::Video) => (secs * qwen_image(640, 360) as f64) as i64,
        // Gemma 3: 256 tokens per image.
        (Template::Gemma, MediaKind::Image) => 256,
        (Template::Gemini, MediaKind::Image) => gemini_image(w, h),
        (Template::Gemini | Template::Gemma, MediaKind::Audio) => (secs * 32.0).ceil() as i64,
        (Template::Gemini | Template::Gemma, MediaKind::Video) => (secs * 263.0).ceil() as i64,
        (Template::Anthropic, MediaKind::Image) => anthropic_image(w, h),
        (Template::Anthropic, _) => 0,
        // Llama 3.2 Vision: one 560-pixel tile set, about 1,601 tokens.
        (Template::Llama3, MediaKind::Image) => 1601,
        (Template::Llama3 | Template::DeepSeek, _) => 0,
        // DeepSeek's chat models take no images; the API rejects them.
    };
    (n, assumed)
}

/// OpenAI's documented image cost: fit in 2048×2048, shortest side down to
/// 768, 512-pixel tiles; patch-based models count 32-pixel patches.
fn openai_image(model: &str, w: u64, h: u64) -> i64 {
    let patch_factor = [
        ("gpt-4.1-mini", 1.62),
        ("gpt-4.1-nano", 2.46),
        ("o4-mini", 1.72),
        ("gpt-5-mini", 1.62),
        ("gpt-5-nano", 2.46),
    ]
    .iter()
    .find(|(p, _)| model.starts_with(p))
    .map(|(_, f)| *f);
    if let Some(factor) = patch_factor {
        let patches = (w.div_ceil(32) * h.div_ceil(32)).min(1536);
        return (patches as f64 * factor).ceil() as i64;
    }
    let (base, tile) = if model.starts_with("gpt-5") {
        (70, 140)
    } else if model.starts_with("o1") || model.starts_with("o3") {
        (75, 150)
    } else if model.starts_with("gpt-4o-mini") {
        (2833, 5667)
    } else {
        (85, 170)
    };
    let (mut w, mut h) = (w as f64, h as f64);
    if w > 2048.0 || h > 2048.0 {
        let r = (2048.0 / w).min(2048.0 / h);
        w *= r;
        h *= r;
    }
    let shortest = w.min(h);
    if shortest > 768.0 {
        let r = 768.0 / shortest;
        w *= r;
        h *= r;
    }
    let tiles = ((w / 512.0).ceil() * (h / 512.0).ceil()) as i64;
    base + tile * tiles
}

/// Qwen-VL: sides rounded to 28-pixel multiples, pixels kept between 4 and
/// 1,280 patches (DashScope's default), one token per patch, plus
/// `<|vision_start|>` and `<|vision_end|>`.
fn qwen_image(w: u64, h: u64) -> i64 {
    let (min_p, max_p) = (4.0 * 784.0, 1280.0 * 784.0);
    let (mut w, mut h) = (w.max(1) as f64, h.max(1) as f64);
    let pixels = w * h;
    if pixels > max_p {
        let r = (max_p / pixels).sqrt();
        w *= r;
        h *= r;
    } else if pixels < min_p {
        let r = (min_p / pixels).sqrt();
        w *= r;
        h *= r;
    }
    let patches = ((w / 28.0).round().max(1.0) * (h / 28.0).round().max(1.0)) as i64;
    patches + 2
}

/// Gemini 2.x: 258 tokens for an image up to 384 pixels each side, else
/// 258 per 768×768 tile.
fn gemini_image(w: u64, h: u64) -> i64 {
    if w <= 384 && h <= 384 {
        258
    } else {
        (w.div_ceil(768) * h.div_ceil(768)) as i64 * 258
    }
}

/// Anthropic: width × height / 750 after fitting the long edge in 1,568
/// pixels (about 1,600 tokens at most).
fn anthropic_image(w: u64, h: u64) -> i64 {
    let (mut w, mut h) = (w as f64, h as f64);
    let long = w.max(h);
    if long > 1568.0 {
        let r = 1568.0 / long;
        w *= r;
        h *= r;
    }
    ((w * h / 750.0).ceil() as i64).min(1600)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn documented_image_rates() {
        assert_eq!(openai_image("gpt-4o", 1024, 1024), 85 + 170 * 4);
        assert_eq!(openai_image("gpt-4o", 100, 100), 85 + 170);
        assert_eq!(openai_image("gpt-4.1-mini", 1024, 1024), 1659);
        assert_eq!(gemini_image(300, 300), 258);
        assert_eq!(gemini_image(1000, 700), 2 * 258);
        assert_eq!(anthropic_image(1000, 1000), 1334);
        assert_eq!(qwen_image(280, 280), 100 + 2);
    }

    #[test]
    fn wav_duration_is_read_from_the_header() {
        let mut wav = b"RIFF\0\0\0\0WAVEfmt ".to_vec();
        wav.extend(16u32.to_le_bytes());
        wav.extend([1, 0, 1, 0]); // PCM, mono
        wav.extend(16000u32.to_le_bytes()); // sample rate
        wav.extend(32000u32.to_le_bytes()); // byte rate
        wav.extend([2, 0, 16, 0]);
        wav.extend(b"data");
        wav.extend(64000u32.to_le_bytes());
        wav.resize(wav.len() + 16, 0);
        assert_eq!(wav_seconds(&wav), Some(2.0));
    }

    #[test]
    fn sources_are_read_from_urls() {
        assert_eq!(
            MediaSource::from_url("data:image/png;base64,AAAA"),
            MediaSource::Base64("AAAA")
        );
        assert_eq!(
            MediaSource::from_url("https://x/y.png"),
            MediaSource::Remote
        );
        assert_eq!(
            MediaSource::from_url("file:///tmp/a.png"),
            MediaSource::Path("/tmp/a.png")
        );
    }
}
