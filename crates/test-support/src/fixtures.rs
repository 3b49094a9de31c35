//! Objects many tests need, written once.

/// A namespaced CustomResourceDefinition of kind `Widget` (`widgets.example.com`, served and
/// stored as `example.com/v1`) whose `spec` is an object with the properties `spec_properties`.
///
/// `spec_properties` is YAML for the `properties:` mapping of `spec`, each line indented by
/// 16 spaces (the nesting depth of `spec`'s properties in the document), e.g.
/// `"                size: {type: integer}\n"`. A field that tests refer to by line stays on
/// the line it has here: the head is always 19 lines.
pub fn widget_crd(spec_properties: &str) -> String {
    format!("{WIDGET_CRD_HEAD}{spec_properties}")
}

/// [`widget_crd`] with `spec.required` set to `required` (a flow sequence, e.g. `[size]`).
pub fn widget_crd_requiring(required: &str, spec_properties: &str) -> String {
    let head = WIDGET_CRD_HEAD.replace(
        "              type: object\n              properties:\n",
        &format!("              type: object\n              required: {required}\n              properties:\n"),
    );
    format!("{head}{spec_properties}")
}

/// The CRD's lines down to `spec`'s `properties:`.
const WIDGET_CRD_HEAD: &str = "apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: widgets.example.com
spec:
  group: example.com
  names: {kind: Widget, plural: widgets, singular: widget, listKind: WidgetList}
  scope: Namespaced
  versions:
    - name: v1
      served: true
      storage: true
      schema:
        openAPIV3Schema:
          type: object
          properties:
            spec:
              type: object
              properties:
";

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_widget_crd_is_one_document_with_its_properties_last() {
        let crd = widget_crd("                size: {type: integer}\n");
        assert_eq!(crd.lines().count(), 20);
        assert!(crd.ends_with("              properties:\n                size: {type: integer}\n"), "{crd}");
        let required = widget_crd_requiring("[size]", "                size: {type: integer}\n");
        assert!(required.contains("              type: object\n              required: [size]\n              properties:\n                size:"), "{required}");
    }
}
