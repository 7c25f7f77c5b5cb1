import ReduxConsumer

/// The part of two lists between their common start and their common end, as the differ aligns
/// it.
struct ListMiddle {
    /// The length of the common start: the position of the middle's first element in both lists.
    var prefix: Int
    /// The length of the common end.
    var suffix: Int
    var old: [Any]
    var new: [Any]
    /// Compares `old[i]` with `new[j]` by their type's own `==` without boxing them again; `nil`
    /// when the elements are not `Equatable`.
    var areEqual: ((_ old: Int, _ new: Int) -> Bool)?
}
