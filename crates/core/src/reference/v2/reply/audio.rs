//! The WAV headers 2.x puts around the raw PCM audio models speak
//! (`agentscope._utils._audio`): 24 kHz, mono, 16-bit.

/// A 44-byte RIFF/WAVE header with these chunk sizes.
fn header(riff_size: u32, data_size: u32) -> Vec<u8> {
    const RATE: u32 = 24_000;
    let mut h = Vec::with_capacity(44);
    h.extend_from_slice(b"RIFF");
    h.extend_from_slice(&riff_size.to_le_bytes());
    h.extend_from_slice(b"WAVEfmt ");
    h.extend_from_slice(&16u32.to_le_bytes());
    h.extend_from_slice(&1u16.to_le_bytes()); // PCM
    h.extend_from_slice(&1u16.to_le_bytes()); // channels
    h.extend_from_slice(&RATE.to_le_bytes());
    h.extend_from_slice(&(RATE * 2).to_le_bytes()); // byte rate
    h.extend_from_slice(&2u16.to_le_bytes()); // block align
    h.extend_from_slice(&16u16.to_le_bytes()); // bits per sample
    h.extend_from_slice(b"data");
    h.extend_from_slice(&data_size.to_le_bytes());
    h
}

/// `_build_streaming_wav_header`: sizes unknown yet (`0xFFFFFFFF`).
pub(super) fn streaming_header() -> Vec<u8> {
    header(u32::MAX, u32::MAX)
}

/// `_build_wav_header(len)`: a complete buffer's real sizes.
pub(super) fn whole_header(data_len: usize) -> Vec<u8> {
    let n = u32::try_from(data_len).unwrap_or(u32::MAX);
    header(n.saturating_add(36), n)
}

/// `_finalize_streaming_wav`: the placeholder sizes of a complete buffer
/// made real; any other layout unchanged.
pub(super) fn finalize_streaming_wav(mut wav: Vec<u8>) -> Vec<u8> {
    let p = streaming_header();
    if wav.len() >= 44 && wav[..20] == p[..20] && wav[36..44] == p[36..44] {
        let data_len = u32::try_from(wav.len() - 44).unwrap_or(u32::MAX);
        wav[4..8].copy_from_slice(&data_len.saturating_add(36).to_le_bytes());
        wav[40..44].copy_from_slice(&data_len.to_le_bytes());
    }
    wav
}
