//! Function names as the call-tree based reports print them.

use crate::symbols::SymbolTable;

/// TTU's `CallTree::getFunctionName`: the containing symbol's name, empty
/// without an image or symbol. `show_offsets` is the reference tools'
/// default; `--no-offsets` turns it off (and, in those tools, only for the
/// tree's root object: callers reproduce that where it shows).
pub fn function_name(image: Option<&SymbolTable>, addr: u64, show_offsets: bool) -> String {
    let Some(image) = image else {
        return String::new();
    };
    if show_offsets {
        image.function_name(addr)
    } else {
        image
            .find_by_address(addr)
            .map_or(String::new(), |(sym, _)| sym.name.clone())
    }
}
