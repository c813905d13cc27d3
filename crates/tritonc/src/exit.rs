//! The exit-code table, shared by every command (documented in `docs/cli.md`).

/// How a `tritonc` process ends. The numeric values are a stable interface.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Exit {
    /// The command did what it was asked and found nothing to report.
    Success,
    /// Lint findings, or a failed verification.
    Findings,
    /// A usage or input error: bad arguments, an unreadable file, a syntax error in a file
    /// to compile, a kernel that cannot be found.
    InputError,
    /// The target, driver or GPU is not available.
    Unavailable,
    /// The feature is not implemented in this build.
    NotImplemented,
    /// A child process (ptxas) ran past its time or memory bound.
    ResourceLimit,
    /// SIGINT or SIGTERM arrived: children are killed and the process ends by the signal
    /// (the shell sees 130 or 143); this status is the fallback.
    Interrupted,
    /// A bug in tritonc (an internal invariant broke; the panic hook reports it).
    InternalError,
}

impl Exit {
    /// The process exit status.
    pub fn code(self) -> u8 {
        match self {
            Exit::Success => 0,
            Exit::Findings => 1,
            Exit::InputError => 2,
            Exit::Unavailable => 3,
            Exit::NotImplemented => 4,
            Exit::ResourceLimit => 5,
            Exit::Interrupted => 130,
            Exit::InternalError => 70,
        }
    }

    /// The more severe of two outcomes, for commands that process several inputs: an
    /// input error outranks findings, and anything unusual outranks success.
    pub fn worst(self, other: Exit) -> Exit {
        fn rank(e: Exit) -> u8 {
            match e {
                Exit::Success => 0,
                Exit::Findings => 1,
                Exit::NotImplemented => 2,
                Exit::Unavailable => 3,
                Exit::ResourceLimit => 4,
                Exit::InputError => 5,
                Exit::InternalError => 6,
                Exit::Interrupted => 7,
            }
        }
        if rank(other) > rank(self) {
            other
        } else {
            self
        }
    }
}

impl From<Exit> for std::process::ExitCode {
    fn from(exit: Exit) -> Self {
        std::process::ExitCode::from(exit.code())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_match_the_documented_table() {
        let table = [
            (Exit::Success, 0),
            (Exit::Findings, 1),
            (Exit::InputError, 2),
            (Exit::Unavailable, 3),
            (Exit::NotImplemented, 4),
            (Exit::ResourceLimit, 5),
            (Exit::Interrupted, 130),
            (Exit::InternalError, 70),
        ];
        for (exit, code) in table {
            assert_eq!(exit.code(), code, "{exit:?}");
        }
    }

    #[test]
    fn input_errors_outrank_findings() {
        assert_eq!(Exit::Findings.worst(Exit::InputError), Exit::InputError);
        assert_eq!(Exit::InputError.worst(Exit::Findings), Exit::InputError);
        assert_eq!(Exit::Success.worst(Exit::Findings), Exit::Findings);
    }
}
