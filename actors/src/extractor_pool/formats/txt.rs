//! Plain text: decoded by `encoding::decode`, then one paragraph element per block.

/// Plain text: one paragraph element per block separated by blank lines.
pub fn extract(text: &str, builder: &mut crate::model::Builder) {
    use crate::model::{Element, ElementKind};
    for block in text.split("\n\n").flat_map(|b| b.split("\r\n\r\n")) {
        builder.push(Element::new(ElementKind::Paragraph, block));
    }
}
