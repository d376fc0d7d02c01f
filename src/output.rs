//! Standard output that a closed pipe (`reprobench analyze x | head`) ends quietly
//! instead of with a panic.

use std::io::Write;

pub fn write(args: std::fmt::Arguments) {
    let mut out = std::io::stdout().lock();
    if let Err(e) = out.write_fmt(args).and_then(|_| out.flush()) {
        if e.kind() == std::io::ErrorKind::BrokenPipe {
            std::process::exit(0);
        }
        eprintln!("error: cannot write to standard output: {e}");
        std::process::exit(2);
    }
}

/// `println!` that survives a closed pipe.
#[macro_export]
macro_rules! outln {
    ($($t:tt)*) => { $crate::output::write(format_args!("{}\n", format_args!($($t)*))) };
}

/// `print!` that survives a closed pipe.
#[macro_export]
macro_rules! out {
    ($($t:tt)*) => { $crate::output::write(format_args!($($t)*)) };
}
