//! What suites derive from a catalog and share, kept beside it while it is judged: one
//! suite makes a value, the others take it (the ladder's levels, which test 2 and the
//! DRAM tier both judge, are read once, before judging, by `Suite::prepare`).

use std::any::Any;
use std::sync::{Arc, Mutex, PoisonError};

type Value = Arc<dyn Any + Send + Sync>;

/// Values by name, each of any type. A copy of a catalog starts with none.
#[derive(Default)]
pub struct Shared(Mutex<Vec<(&'static str, Option<Value>)>>);

impl Shared {
    /// Makes the value kept under `key` unless it is kept or being made: the first to
    /// ask makes it, the others go on at once. Nobody waits: a thread waiting for a value
    /// could be the one that must make it (a parallel reading hands work to waiting
    /// threads). Judging starts after every suite's preparing, so the value is kept then.
    pub fn prepare<T: Any + Send + Sync>(&self, key: &'static str, make: impl FnOnce() -> T) {
        {
            let mut all = self.lock();
            if all.iter().any(|(k, _)| *k == key) {
                return;
            }
            all.push((key, None));
        }
        let made: Value = Arc::new(make());
        let mut all = self.lock();
        if let Some((_, slot)) = all.iter_mut().find(|(k, _)| *k == key) {
            *slot = Some(made);
        }
    }

    /// The value kept under `key`, or the one `make` makes (kept if none is), outside
    /// the lock, for the same reason [`Shared::prepare`] waits for nobody.
    pub fn get_or_make<T: Any + Send + Sync>(
        &self,
        key: &'static str,
        make: impl FnOnce() -> T,
    ) -> Arc<T> {
        if let Some(kept) = self.kept::<T>(key) {
            return kept;
        }
        let made = Arc::new(make());
        let mut all = self.lock();
        match all.iter_mut().find(|(k, _)| *k == key) {
            Some((_, Some(kept))) => Arc::clone(kept).downcast::<T>().unwrap_or(made),
            Some((_, slot)) => {
                *slot = Some(Arc::clone(&made) as Value);
                made
            }
            None => {
                all.push((key, Some(Arc::clone(&made) as Value)));
                made
            }
        }
    }

    /// Drops every value (the judging that shared them is over).
    pub fn clear(&self) {
        self.lock().clear();
    }

    fn kept<T: Any + Send + Sync>(&self, key: &'static str) -> Option<Arc<T>> {
        let all = self.lock();
        let (_, kept) = all.iter().find(|(k, _)| *k == key)?;
        Arc::clone(kept.as_ref()?).downcast::<T>().ok()
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Vec<(&'static str, Option<Value>)>> {
        self.0.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

impl Clone for Shared {
    fn clone(&self) -> Shared {
        Shared::default()
    }
}

impl std::fmt::Debug for Shared {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list()
            .entries(self.lock().iter().map(|(k, _)| k))
            .finish()
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
        shared.clear();
        assert_eq!(*shared.get_or_make("levels", || vec![5]), vec![5]);
    }

    #[test]
    fn preparing_makes_once_and_whoever_asks_while_it_is_made_goes_on() {
        let shared = Shared::default();
        let mut inner_ran = false;
        shared.prepare("levels", || {
            // Asked again while being made (as a thread waiting inside a parallel
            // reading may be): it returns at once instead of waiting on itself.
            shared.prepare("levels", || inner_ran = true);
            vec![1]
        });
        assert!(!inner_ran);
        shared.prepare("levels", || panic!("made twice"));
        assert_eq!(*shared.get_or_make("levels", Vec::<i32>::new), vec![1]);
    }
}
