//! The time and memory bounds ptxas runs under.

use std::time::Duration;

/// The variable that sets the time bound: seconds (`600`, `2.5`), or with a unit (`90s`,
/// `10m`, `1h`), or `none`.
pub const TIMEOUT_VAR: &str = "TRITONC_PTXAS_TIMEOUT";

/// The variable that sets the memory bound (ptxas's address space): bytes, or with a
/// binary unit (`512M`, `16G`), or `none`.
pub const MEMORY_VAR: &str = "TRITONC_PTXAS_MEMORY";

/// The smallest memory bound accepted: ptxas itself needs about 100 MiB of address space
/// to start (below that it fails loading its libraries, which would read as a ptxas bug).
pub const MIN_MEMORY: u64 = 256 << 20;

/// How long and how much ptxas may run and use.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Bounds {
    /// Wall-clock time; `None` waits as long as ptxas runs.
    pub time: Option<Duration>,
    /// The address space (`RLIMIT_AS`) in bytes; `None` sets no limit.
    pub memory: Option<u64>,
}

impl Default for Bounds {
    /// Generous: 10 minutes and 16 GiB. Large tensor-core kernels take ptxas minutes and
    /// gigabytes; a kernel past these is almost always a block size mistake.
    fn default() -> Self {
        Bounds {
            time: Some(Duration::from_secs(600)),
            memory: Some(16 << 30),
        }
    }
}

impl Bounds {
    /// The bounds `TRITONC_PTXAS_TIMEOUT` and `TRITONC_PTXAS_MEMORY` set (the defaults
    /// where unset); a message naming the variable when one is malformed.
    pub fn from_env() -> Result<Bounds, String> {
        let var = |name: &str| std::env::var_os(name).map(|v| v.to_string_lossy().into_owned());
        Bounds::parse(var(TIMEOUT_VAR).as_deref(), var(MEMORY_VAR).as_deref())
    }

    /// The bounds from the variables' values (`None`: unset).
    pub fn parse(timeout: Option<&str>, memory: Option<&str>) -> Result<Bounds, String> {
        let mut bounds = Bounds::default();
        if let Some(text) = timeout {
            bounds.time = parse_time(text).map_err(|why| {
                format!("{TIMEOUT_VAR}=`{text}`: {why} (e.g. `600`, `90s`, `10m`, `none`)")
            })?;
        }
        if let Some(text) = memory {
            bounds.memory = parse_memory(text).map_err(|why| {
                format!("{MEMORY_VAR}=`{text}`: {why} (e.g. `16G`, `512M`, `none`)")
            })?;
        }
        Ok(bounds)
    }

    /// The time bound in words (`600 s`, `no time bound`).
    pub fn time_text(&self) -> String {
        match self.time {
            Some(t) => seconds(t),
            None => "no time bound".to_string(),
        }
    }

    /// The memory bound in words (`16 GiB`, `no memory bound`).
    pub fn memory_text(&self) -> String {
        match self.memory {
            Some(m) => bytes(m),
            None => "no memory bound".to_string(),
        }
    }
}

/// `2.5 s`, `600 s`.
pub(crate) fn seconds(t: Duration) -> String {
    let s = t.as_secs_f64();
    if s.fract() == 0.0 {
        format!("{s:.0} s")
    } else {
        format!("{s} s")
    }
}

/// `16 GiB`, `300 MiB`, `1234 bytes`.
pub(crate) fn bytes(n: u64) -> String {
    for (shift, unit) in [(30, "GiB"), (20, "MiB"), (10, "KiB")] {
        if n >= 1 << shift && n % (1 << shift) == 0 {
            return format!("{} {unit}", n >> shift);
        }
    }
    format!("{n} bytes")
}

fn parse_time(text: &str) -> Result<Option<Duration>, String> {
    let t = text.trim();
    if t.eq_ignore_ascii_case("none") {
        return Ok(None);
    }
    let (number, scale) = match t.char_indices().last() {
        Some((i, 's')) => (&t[..i], 1.0),
        Some((i, 'm')) => (&t[..i], 60.0),
        Some((i, 'h')) => (&t[..i], 3600.0),
        _ => (t, 1.0),
    };
    let value: f64 = number
        .trim()
        .parse()
        .map_err(|_| "not a number of seconds".to_string())?;
    let secs = value * scale;
    if !secs.is_finite() || secs <= 0.0 {
        return Err("the time bound must be more than 0".to_string());
    }
    if secs > 1e9 {
        return Err("the time bound is too large".to_string());
    }
    Ok(Some(Duration::from_secs_f64(secs)))
}

fn parse_memory(text: &str) -> Result<Option<u64>, String> {
    let t = text.trim();
    if t.eq_ignore_ascii_case("none") {
        return Ok(None);
    }
    let upper = t.to_ascii_uppercase();
    let upper = upper.strip_suffix("IB").map_or(upper.as_str(), |s| s);
    let upper = upper.strip_suffix('B').unwrap_or(upper);
    let (number, shift) = match upper.chars().last() {
        Some('K') => (&upper[..upper.len() - 1], 10),
        Some('M') => (&upper[..upper.len() - 1], 20),
        Some('G') => (&upper[..upper.len() - 1], 30),
        Some('T') => (&upper[..upper.len() - 1], 40),
        _ => (upper, 0),
    };
    let value: u64 = number
        .trim()
        .parse()
        .map_err(|_| "not a size".to_string())?;
    let n = value
        .checked_mul(1 << shift)
        .ok_or_else(|| "the size is too large".to_string())?;
    if n < MIN_MEMORY {
        return Err(format!(
            "ptxas needs at least {} of address space to start",
            bytes(MIN_MEMORY)
        ));
    }
    Ok(Some(n))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unset_variables_give_the_defaults() {
        let b = Bounds::parse(None, None).unwrap();
        assert_eq!(b.time, Some(Duration::from_secs(600)));
        assert_eq!(b.memory, Some(16 * 1024 * 1024 * 1024));
        assert_eq!(b.time_text(), "600 s");
        assert_eq!(b.memory_text(), "16 GiB");
    }

    #[test]
    fn times_take_seconds_minutes_hours_and_none() {
        let t = |s| Bounds::parse(Some(s), None).map(|b| b.time);
        assert_eq!(t("2"), Ok(Some(Duration::from_secs(2))));
        assert_eq!(t("2.5"), Ok(Some(Duration::from_millis(2500))));
        assert_eq!(t("90s"), Ok(Some(Duration::from_secs(90))));
        assert_eq!(t("10m"), Ok(Some(Duration::from_secs(600))));
        assert_eq!(t("1h"), Ok(Some(Duration::from_secs(3600))));
        assert_eq!(t("none"), Ok(None));
        for bad in ["0", "-3", "ten", "", "5x", "nan", "inf"] {
            let e = t(bad).unwrap_err();
            assert!(e.starts_with("TRITONC_PTXAS_TIMEOUT="), "{bad}: {e}");
        }
    }

    #[test]
    fn sizes_take_binary_units_and_none() {
        let m = |s| Bounds::parse(None, Some(s)).map(|b| b.memory);
        assert_eq!(m("512M"), Ok(Some(512 << 20)));
        assert_eq!(m("512MiB"), Ok(Some(512 << 20)));
        assert_eq!(m("16g"), Ok(Some(16 << 30)));
        assert_eq!(m("1T"), Ok(Some(1 << 40)));
        assert_eq!(m("268435456"), Ok(Some(256 << 20)));
        assert_eq!(m("none"), Ok(None));
        for bad in ["100M", "0", "lots", "", "99999999999999999999G", "-1G"] {
            let e = m(bad).unwrap_err();
            assert!(e.starts_with("TRITONC_PTXAS_MEMORY="), "{bad}: {e}");
        }
    }

    #[test]
    fn bounds_read_as_words() {
        assert_eq!(bytes(300 << 20), "300 MiB");
        assert_eq!(bytes(1000), "1000 bytes");
        assert_eq!(seconds(Duration::from_millis(1500)), "1.5 s");
    }
}
