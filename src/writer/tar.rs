//! A minimal POSIX ustar writer, enough for WebDataset shards.
//!
//! Written here rather than taken from a crate because the index needs the byte offset of every member
//! (so a reader can seek to one image without scanning the tar), and because the output must be
//! byte-identical on replay: every header has mtime 0, mode 0644 and no owner names.

const BLOCK: usize = 512;

/// Builds a tar archive in memory.
#[derive(Default)]
pub struct TarBuilder {
    buf: Vec<u8>,
}

impl TarBuilder {
    /// An empty archive.
    pub fn new() -> Self {
        Self::default()
    }

    /// Appends a regular file and returns the byte offset of its data within the archive.
    ///
    /// `name` must be at most 100 bytes (sample keys are 32 hex characters plus an extension).
    pub fn append(&mut self, name: &str, data: &[u8]) -> u64 {
        assert!(name.len() <= 100, "tar member name too long: {name}");
        let mut header = [0u8; BLOCK];
        header[..name.len()].copy_from_slice(name.as_bytes());
        octal(&mut header[100..108], 0o644);
        octal(&mut header[108..116], 0);
        octal(&mut header[116..124], 0);
        octal(&mut header[124..136], data.len() as u64);
        octal(&mut header[136..148], 0);
        header[156] = b'0';
        header[257..263].copy_from_slice(b"ustar\0");
        header[263..265].copy_from_slice(b"00");
        // The checksum is computed with its own field read as spaces.
        header[148..156].fill(b' ');
        let sum: u64 = header.iter().map(|b| u64::from(*b)).sum();
        let digits = format!("{sum:06o}\0 ");
        header[148..156].copy_from_slice(digits.as_bytes());

        self.buf.extend_from_slice(&header);
        let offset = self.buf.len() as u64;
        self.buf.extend_from_slice(data);
        let padding = (BLOCK - data.len() % BLOCK) % BLOCK;
        self.buf.resize(self.buf.len() + padding, 0);
        offset
    }

    /// Bytes written so far.
    pub fn len(&self) -> u64 {
        self.buf.len() as u64
    }

    /// Whether nothing was appended.
    pub fn is_empty(&self) -> bool {
        self.buf.is_empty()
    }

    /// Ends the archive with the two zero blocks readers expect.
    pub fn finish(mut self) -> Vec<u8> {
        self.buf.resize(self.buf.len() + 2 * BLOCK, 0);
        self.buf
    }
}

/// Writes `value` as zero-padded octal with a terminating NUL, filling `field`.
fn octal(field: &mut [u8], value: u64) {
    let width = field.len() - 1;
    let text = format!("{value:0width$o}");
    assert!(text.len() <= width, "value {value} too large for tar field");
    field[..width].copy_from_slice(text.as_bytes());
    field[width] = 0;
}

/// One member of an archive read back by [`read_members`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Member {
    /// Member name.
    pub name: String,
    /// Offset of its data.
    pub offset: u64,
    /// Its data.
    pub data: Vec<u8>,
}

/// Errors reading a tar archive.
#[derive(Debug, thiserror::Error)]
#[error("malformed tar at byte {offset}: {reason}")]
pub struct TarError {
    /// Where.
    pub offset: u64,
    /// What.
    pub reason: &'static str,
}

/// Reads the regular files of a ustar archive (used by `altflow inspect`).
pub fn read_members(archive: &[u8]) -> Result<Vec<Member>, TarError> {
    let mut members = Vec::new();
    let mut pos = 0usize;
    while pos + BLOCK <= archive.len() {
        let header = &archive[pos..pos + BLOCK];
        if header.iter().all(|b| *b == 0) {
            return Ok(members);
        }
        let err = |reason| TarError {
            offset: pos as u64,
            reason,
        };
        let stored: u64 = parse_octal(&header[148..156]).ok_or(err("bad checksum field"))?;
        let actual: u64 = header[..148]
            .iter()
            .chain([b' '; 8].iter())
            .chain(header[156..].iter())
            .map(|b| u64::from(*b))
            .sum();
        if stored != actual {
            return Err(err("checksum mismatch"));
        }
        let size = parse_octal(&header[124..136]).ok_or(err("bad size field"))? as usize;
        let name_end = header[..100].iter().position(|b| *b == 0).unwrap_or(100);
        let name = String::from_utf8_lossy(&header[..name_end]).into_owned();
        let start = pos + BLOCK;
        let end = start.checked_add(size).ok_or(err("size overflows"))?;
        if end > archive.len() {
            return Err(err("member runs past the end"));
        }
        if matches!(header[156], b'0' | 0) {
            members.push(Member {
                name,
                offset: start as u64,
                data: archive[start..end].to_vec(),
            });
        }
        pos = start + size.div_ceil(BLOCK) * BLOCK;
    }
    Err(TarError {
        offset: pos as u64,
        reason: "no end-of-archive marker",
    })
}

fn parse_octal(field: &[u8]) -> Option<u64> {
    let text = std::str::from_utf8(field).ok()?;
    let text = text.trim_matches(|c: char| c == '\0' || c == ' ');
    if text.is_empty() {
        return Some(0);
    }
    u64::from_str_radix(text, 8).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trip_with_offsets() {
        let mut tar = TarBuilder::new();
        let a = tar.append("k1.txt", b"hello");
        let b = tar.append("k1.jpg", &[0xffu8; 1000]);
        let c = tar.append("empty.json", b"");
        let bytes = tar.finish();
        assert_eq!(bytes.len() % BLOCK, 0);
        let members = read_members(&bytes).unwrap();
        assert_eq!(members.len(), 3);
        assert_eq!(members[0].name, "k1.txt");
        assert_eq!(members[0].data, b"hello");
        assert_eq!(members[1].data.len(), 1000);
        assert_eq!([a, b, c], [512, 1536, 3072]);
        for m in &members {
            let o = m.offset as usize;
            assert_eq!(&bytes[o..o + m.data.len()], &m.data[..]);
        }
    }

    #[test]
    fn output_is_deterministic() {
        let build = || {
            let mut tar = TarBuilder::new();
            tar.append("a.txt", b"x");
            tar.finish()
        };
        assert_eq!(build(), build());
    }

    #[test]
    fn corrupted_header_is_reported() {
        let mut tar = TarBuilder::new();
        tar.append("a.txt", b"x");
        let mut bytes = tar.finish();
        bytes[3] ^= 0x55;
        assert!(
            read_members(&bytes)
                .unwrap_err()
                .to_string()
                .contains("checksum")
        );
        assert!(read_members(&bytes[..100]).is_err());
    }
}
