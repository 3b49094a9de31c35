//! A source: a file (or standard input) and its whole text, named as the user gave it.

use std::path::PathBuf;

/// Where a source's text came from.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum SourcePath {
    File(PathBuf),
    Stdin,
}

impl SourcePath {
    /// The name shown to users: the path as given (relative paths stay relative), or `<stdin>`.
    pub fn display(&self) -> String {
        self.name().into_owned()
    }

    /// [`SourcePath::display`] borrowed from the path when it is UTF-8.
    #[must_use]
    pub fn name(&self) -> std::borrow::Cow<'_, str> {
        match self {
            SourcePath::File(p) => p.to_string_lossy(),
            SourcePath::Stdin => "<stdin>".into(),
        }
    }
}

/// One input file (or standard input) and its full text.
#[derive(Clone, Debug)]
pub struct Source {
    pub path: SourcePath,
    pub text: String,
}
