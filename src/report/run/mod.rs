//! Reports of a suite run (`faithprobe run`), one file per format: the terminal table
//! (`human`), JSON Lines with the record's typed case rows (`json`), a pull-request comment
//! (`markdown`) and JUnit XML (`junit`). Every other subject (compare, sweep, answers, audit) has
//! its own module beside this one, each with its formats.

pub mod human;
pub mod json;
pub mod junit;
pub mod markdown;
