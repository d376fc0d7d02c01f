//! What suites derive from a catalog and share, kept beside it: the first suite to ask for
//! a value makes it, every later one reuses it (the ladder's levels, read by test 2 and
//! the DRAM tier alike, and read before judging by `Suite::prepare`).

use std::any::Any;
use std::sync::{Arc, Mutex, PoisonError};

/// Values by name, each of any type. A copy of a catalog starts with none.
#[derive(Default)]
pub struct Shared(Mutex<Vec<(&'static str, Arc<dyn Any + Send + Sync>)>>);

impl Shared {
    /// The value kept under `key`, or the one `make` makes, kept. `make` runs outside the
    /// lock: it may itself run in parallel, and a suite judged meanwhile on the same
    /// thread may ask for another key. Two asking at once may both make it; the first
    /// kept is the one both get.
    pub fn get_or_make<T: Any + Send + Sync>(
        &self,
        key: &'static str,
        make: impl FnOnce() -> T,
    ) -> Arc<T> {
        if let Some(kept) = self.kept::<T>(key) {
            return kept;
        }
        let made = Arc::new(make());
        let mut all = self.0.lock().unwrap_or_else(PoisonError::into_inner);
        match all.iter().find(|(k, _)| *k == key) {
            Some((_, kept)) => match Arc::clone(kept).downcast::<T>() {
                Ok(kept) => kept,
                // Another type under the same name: not kept, so not shared.
                Err(_) => made,
            },
            None => {
                all.push((key, Arc::clone(&made) as Arc<dyn Any + Send + Sync>));
                made
            }
        }
    }

    fn kept<T: Any + Send + Sync>(&self, key: &'static str) -> Option<Arc<T>> {
        let all = self.0.lock().unwrap_or_else(PoisonError::into_inner);
        let (_, kept) = all.iter().find(|(k, _)| *k == key)?;
        Arc::clone(kept).downcast::<T>().ok()
    }
}

impl Clone for Shared {
    fn clone(&self) -> Shared {
        Shared::default()
    }
}

impl std::fmt::Debug for Shared {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let all = self.0.lock().unwrap_or_else(PoisonError::into_inner);
        f.debug_list().entries(all.iter().map(|(k, _)| k)).finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_value_is_made_once_and_shared() {
        let shared = Shared::default();
        let mut made = 0;
        let a = shared.get_or_make("levels", || {
            made += 1;
            vec![1, 2, 3]
        });
        let b = shared.get_or_make("levels", || {
            made += 1;
            vec![4]
        });
        assert_eq!(made, 1);
        assert!(Arc::ptr_eq(&a, &b));
        // Another name, another value; a copy starts empty.
        assert_eq!(*shared.get_or_make("other", || 7u8), 7);
        assert_eq!(*shared.clone().get_or_make("levels", || vec![9]), vec![9]);
        // The same name asked as another type is made, not mixed up.
        assert_eq!(*shared.get_or_make("levels", || "text"), "text");
        assert_eq!(
            *shared.get_or_make("levels", Vec::<i32>::new),
            vec![1, 2, 3]
        );
    }
}
