//! Collects every error found in one macro invocation, so one compile shows
//! all the mistakes at once (as serde_derive's `Ctxt` does).

use std::cell::RefCell;
use std::fmt::Display;

use proc_macro2::TokenStream;
use quote::ToTokens;

/// The errors of one invocation. Every context must end in
/// [`Ctxt::into_compile_errors`] (or, for a parse whose errors another pass
/// already reports, [`Ctxt::discard`]): one dropped otherwise would lose
/// its errors without a word, so dropping it panics, in a debug build of
/// the macros, naming the mistake.
pub struct Ctxt {
    /// `None` once the errors were taken.
    errors: RefCell<Option<Vec<syn::Error>>>,
}

impl Ctxt {
    pub fn new() -> Self {
        Ctxt {
            errors: RefCell::new(Some(Vec::new())),
        }
    }

    /// Records an error spanning `tokens`.
    pub fn error_spanned_by(&self, tokens: impl ToTokens, message: impl Display) {
        self.push(syn::Error::new_spanned(tokens, message));
    }

    pub fn push(&self, error: syn::Error) {
        self.errors
            .borrow_mut()
            .as_mut()
            .expect("a context takes no error once its errors were taken")
            .push(error);
    }

    pub fn has_errors(&self) -> bool {
        self.errors
            .borrow()
            .as_ref()
            .is_some_and(|errors| !errors.is_empty())
    }

    /// The errors as `compile_error!` invocations, empty when there are none.
    pub fn into_compile_errors(self) -> TokenStream {
        self.take()
            .into_iter()
            .map(syn::Error::into_compile_error)
            .collect()
    }

    /// Ends a context whose errors are reported elsewhere: a second parse
    /// of what an earlier pass already parsed and checked.
    pub fn discard(self) {
        self.take();
    }

    fn take(&self) -> Vec<syn::Error> {
        self.errors.borrow_mut().take().unwrap_or_default()
    }
}

impl Drop for Ctxt {
    fn drop(&mut self) {
        if cfg!(debug_assertions) && self.errors.get_mut().is_some() && !std::thread::panicking() {
            panic!(
                "a macro context was dropped with its errors unread: end it with \
                 `into_compile_errors` (or `discard`), or its errors are lost"
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::Ctxt;

    #[test]
    #[should_panic(expected = "a macro context was dropped with its errors unread")]
    fn a_context_dropped_unread_panics() {
        let cx = Ctxt::new();
        cx.error_spanned_by(quote::quote!(x), "lost");
        drop(cx);
    }

    #[test]
    #[should_panic(expected = "a macro context was dropped with its errors unread")]
    fn a_context_without_errors_must_be_read_too() {
        drop(Ctxt::new());
    }

    #[test]
    fn a_context_read_or_discarded_ends_quietly() {
        let cx = Ctxt::new();
        cx.error_spanned_by(quote::quote!(x), "reported");
        assert!(cx.has_errors());
        assert!(!cx.into_compile_errors().is_empty());
        let cx = Ctxt::new();
        cx.error_spanned_by(quote::quote!(x), "reported by the first pass");
        cx.discard();
    }
}
