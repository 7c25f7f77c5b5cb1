import ReduxConsumer

/// The structural differences between two values, found by reflection.
///
/// `StateDiff` walks both values with `Mirror` and records one ``Change`` for every place where
/// they differ: struct and class properties, enum cases and their payloads, optionals, array
/// elements, dictionary entries, set members and tuple elements, at any depth. It works for any
/// type; `Equatable` types are compared with their own `==` first, so equal subtrees cost one
/// comparison and are never walked.
///
/// ```swift
/// let diff = StateDiff(from: oldState, to: newState)
/// print(diff.rendered())
/// // ~ auth.user.name: "Kim" → "Lee"
/// // + works[2]: Work(title: "Dune")
/// ```
///
/// How values are matched:
/// - Classes: the same instance is unchanged; different instances are compared property by
///   property, superclass properties first. Reference cycles are followed once.
/// - Enums: a different case is one ``Change/Kind/changed`` at the enum's path; the same case is
///   compared payload by payload (`status.loaded.count`).
/// - Optionals: `nil` to a value is ``Change/Kind/added``, a value to `nil` is
///   ``Change/Kind/removed``; two values are compared at the same path (no `.some` component).
/// - Arrays and other collections: elements are aligned (common prefix and suffix, then a
///   shortest edit script) so that an insertion shows as one ``Change/Kind/added`` instead of a
///   change at every later index. Removals carry their old index, insertions and changes their
///   new index. When the part that differs is too large to align cheaply, elements are compared
///   index by index. A ``ChunkedCollection`` is diffed and rendered as the array of its elements.
/// - Dictionaries: entries are matched by key; sets by member.
///
/// ## Cost
/// A diff costs what changed, not the size of the values. `Equatable` subtrees are compared with
/// their own `==` first, so equal ones are never walked. Arrays are read without a `Mirror`: their
/// common prefix and suffix are trimmed first, by shared storage (two arrays that share a buffer
/// are equal), by identical bytes, then by `==`, and only the elements left in between are
/// reflected, aligned and rendered. Values and elements whose bytes are identical count as
/// unchanged, even a `Double.nan`, which is not `==` to itself; so a state that an action left
/// alone costs one comparison of its bytes. An array that was copied before it changed must
/// still be read once, at memory speed (1.6 MB for 100,000 strings). A ``ChunkedCollection``
/// avoids even that: chunks that both versions share are skipped without being read, so one
/// append to it costs a few microseconds whatever its length. Rendering a large value reads only
/// the elements that fit in its rendering: an array's first ones; a set's or dictionary's with the
/// smallest keys by `<` when its keys are `Comparable` and it has more than fit (about 1,000),
/// found by reading each member once (boxed, with one comparison), followed by the count of the
/// others. A set or dictionary
/// whose keys are not `Comparable` is rendered whole to be sorted by rendering: one rendering
/// per member, however few are shown.
///
/// Changes are ordered depth first in declaration order; dictionary keys and set members are
/// ordered by their rendered description, so the result is the same on every run. Values are
/// rendered with the same notation as the paths (see ``Change/oldValue``). Nesting deeper than
/// 32 levels and values longer than about 2,000 characters are cut off with `…` in those
/// renderings, never in the comparison itself.
///
/// A `StateDiff` holds only strings, so it can be sent anywhere and encoded to JSON.
public struct StateDiff: Sendable, Hashable, Encodable {
    /// The differences, in the order described in the type's documentation; empty when the
    /// values are equal.
    public var changes: [Change]

    /// Whether the two values were found equal.
    public var isEmpty: Bool { changes.isEmpty }

    /// Computes the differences between two values of the same type.
    ///
    /// Neither value needs to be `Equatable`. Equal `Equatable` subtrees are skipped after one
    /// `==`, and the unchanged ends of arrays are skipped by storage or bytes, so diffing two
    /// states that share most of their data is cheap (see "Cost" above).
    ///
    /// - Parameters:
    ///   - old: The value before, for example the state before an action.
    ///   - new: The value after.
    /// - Complexity: Roughly linear in the size of the parts that differ. An array's unchanged
    ///   ends cost a byte comparison (nothing when the storage is shared; one comparison per
    ///   chunk for a ``ChunkedCollection``). The d elements left in between are aligned in
    ///   O(d²) at worst, within a budget of a fixed amount plus their own length (so two edits
    ///   far apart in a long array are found as two), after which they are compared index by
    ///   index.
    ///   Each `Equatable` value on the way to a difference is compared with its own `==`, which
    ///   reads down to that difference again: a chain of n nested `Equatable` values (a recursive
    ///   enum, a linked list) that differs at its far end costs O(n²) `==` steps.
    public init<Value>(from old: Value, to new: Value) {
        guard !IdenticalBytes.areIdentical(old, new) else {
            // The same bytes are the same value: an action that changed nothing costs this.
            changes = []
            return
        }
        var differ = ReflectiveDiffer()
        changes = differ.changes(from: old, to: new)
    }

    /// Renders the changes as text, one line per change.
    ///
    /// See ``DiffFormat`` for the notation. An empty diff renders as an empty string.
    ///
    /// - Parameter format: How to render values and whether to color lines.
    /// - Returns: The lines, joined by `"\n"`, without a trailing newline.
    public func rendered(_ format: DiffFormat = DiffFormat()) -> String {
        changes.map { format.line(for: $0) }.joined(separator: "\n")
    }
}

extension StateDiff: CustomStringConvertible {
    /// The changes rendered with the default ``DiffFormat``.
    public var description: String { rendered() }
}
