import ReduxConsumer

/// Renders any value as one line of Swift-like text for ``StateDiff/Change``.
///
/// Strings are quoted and escaped, structs and classes written as `User(name: "Kim")`, enums as
/// `.loaded(count: 3)`, optionals unwrapped, line breaks in other descriptions escaped. Dictionary entries and set members are sorted by
/// their rendering so the output does not depend on hashing order; when more than fit have
/// `Comparable` keys, only those with the smallest keys are rendered, in order, then how many
/// more. Output is bounded: nesting
/// deeper than `maxDepth` becomes `…`, a class already being rendered further up becomes
/// `Name(…)`, and rendering stops once about `maxLength` UTF-8 bytes are written.
struct ValueDumper {
    var maxDepth = 32
    var maxLength = 2_000

    func string(describing value: Any) -> String {
        var output = Output(limit: maxLength)
        var ancestors: [ObjectIdentifier] = []
        write(value, depth: 0, to: &output, ancestors: &ancestors)
        return output.finished()
    }

    private struct Output {
        let limit: Int
        private(set) var text = ""
        private var length = 0

        init(limit: Int) {
            self.limit = limit
        }

        var isFull: Bool { length > limit }

        /// The bytes that may still be written before the text is cut.
        var remaining: Int { max(limit - length, 0) }

        mutating func append(_ piece: String) {
            guard !isFull else {
                return
            }
            text += piece
            length += piece.utf8.count
        }

        func finished() -> String {
            guard isFull else {
                return text
            }
            var end = text.startIndex
            var used = 0
            for index in text.indices {
                used += text[index].utf8.count
                guard used <= limit else {
                    break
                }
                end = text.index(after: index)
            }
            return text[..<end] + "…"
        }
    }

    private func write(_ value: Any, depth: Int, to output: inout Output, ancestors: inout [ObjectIdentifier]) {
        guard !output.isFull else {
            return
        }
        if let quoted = Self.quoted(value) {
            output.append(quoted)
            return
        }
        guard depth < maxDepth else {
            output.append("…")
            return
        }
        switch ValueShape(of: value) {
        case .leaf:
            // A custom description may span lines; a change is rendered on one.
            output.append(String(describing: value).escapingLineBreaks())
        case .optional(let wrapped):
            if let wrapped {
                write(wrapped, depth: depth, to: &output, ancestors: &ancestors)
            } else {
                output.append("nil")
            }
        case .enumCase(let name, let payload):
            writeEnumCase(value, name: name, payload: payload, depth: depth, to: &output, ancestors: &ancestors)
        case .fields(let typeName, let fields, let object):
            if let object {
                let id = ObjectIdentifier(object)
                guard !ancestors.contains(id) else {
                    output.append("\(typeName)(…)")
                    return
                }
                ancestors.append(id)
                defer { ancestors.removeLast() }
                output.append(typeName)
                writeFields(fields, open: "(", close: ")", depth: depth, to: &output, ancestors: &ancestors)
            } else {
                output.append(typeName)
                writeFields(fields, open: "(", close: ")", depth: depth, to: &output, ancestors: &ancestors)
            }
        case .tuple(let fields):
            writeFields(fields, open: "(", close: ")", depth: depth, to: &output, ancestors: &ancestors)
        case .collection(let elements):
            writeElements(elements, depth: depth, to: &output, ancestors: &ancestors)
        case .dictionary(let entries):
            writeDictionary(entries, depth: depth, to: &output, ancestors: &ancestors)
        case .set(let members):
            if let smallest = smallestIfTooMany(members, room: output.remaining, key: { $0 }) {
                output.append("Set([")
                writeFirst(smallest, of: members.count, close: "])", to: &output) { member, output in
                    write(member, depth: depth + 1, to: &output, ancestors: &ancestors)
                }
                return
            }
            let sorted = members.map { rendering(of: $0, depth: depth + 1, ancestors: &ancestors) }.sorted()
            output.append("Set([" + sorted.joined(separator: ", ") + "])")
        }
    }

    private func writeEnumCase(
        _ value: Any,
        name: String,
        payload: Any?,
        depth: Int,
        to output: inout Output,
        ancestors: inout [ObjectIdentifier]
    ) {
        guard let payload else {
            let hasCustomDescription = value is any CustomStringConvertible || value is any CustomDebugStringConvertible
            // Without a payload the name is the case's description, which may span lines.
            let name = name.escapingLineBreaks()
            output.append(hasCustomDescription ? name : "." + name)
            return
        }
        output.append("." + name)
        if case .tuple(let fields) = ValueShape(of: payload) {
            writeFields(fields, open: "(", close: ")", depth: depth, to: &output, ancestors: &ancestors)
        } else {
            output.append("(")
            write(payload, depth: depth + 1, to: &output, ancestors: &ancestors)
            output.append(")")
        }
    }

    private func writeFields(
        _ fields: [ValueShape.Field],
        open: String,
        close: String,
        depth: Int,
        to output: inout Output,
        ancestors: inout [ObjectIdentifier]
    ) {
        output.append(open)
        for (offset, field) in fields.enumerated() {
            guard !output.isFull else {
                return
            }
            if offset > 0 {
                output.append(", ")
            }
            if let label = field.label {
                output.append(label + ": ")
            }
            write(field.value, depth: depth + 1, to: &output, ancestors: &ancestors)
        }
        output.append(close)
    }

    /// Reads only the elements that fit: a large array costs what is written, not its length.
    private func writeElements(
        _ elements: any ElementList,
        depth: Int,
        to output: inout Output,
        ancestors: inout [ObjectIdentifier]
    ) {
        // Each element takes at least one byte, so no more than `maxLength` can be written.
        let shown = elements.elements(in: 0..<min(elements.count, maxLength + 1))
        let fields = shown.map { ValueShape.Field(label: nil, value: $0) }
        writeFields(fields, open: "[", close: "]", depth: depth, to: &output, ancestors: &ancestors)
    }

    private func writeDictionary(
        _ entries: [(key: Any, value: Any)],
        depth: Int,
        to output: inout Output,
        ancestors: inout [ObjectIdentifier]
    ) {
        guard !entries.isEmpty else {
            output.append("[:]")
            return
        }
        if let smallest = smallestIfTooMany(entries, room: output.remaining, key: \.key) {
            output.append("[")
            writeFirst(smallest, of: entries.count, close: "]", to: &output) { entry, output in
                write(entry.key, depth: depth + 1, to: &output, ancestors: &ancestors)
                output.append(": ")
                write(entry.value, depth: depth + 1, to: &output, ancestors: &ancestors)
            }
            return
        }
        let sorted = entries.map {
            (key: rendering(of: $0.key, depth: depth + 1, ancestors: &ancestors), value: $0.value)
        }
        .sorted { $0.key < $1.key }
        output.append("[")
        for (offset, entry) in sorted.enumerated() {
            guard !output.isFull else {
                return
            }
            if offset > 0 {
                output.append(", ")
            }
            output.append(entry.key + ": ")
            write(entry.value, depth: depth + 1, to: &output, ancestors: &ancestors)
        }
        output.append("]")
    }

    /// When a set or dictionary has more members than `room` bytes can show (each takes at
    /// least two, with its separator) and their keys are `Comparable`, the members with the
    /// smallest keys that may fit, in order; otherwise `nil`, and every member is rendered and
    /// sorted by its rendering. The choice depends on the members alone, never on their hashing
    /// order, and costs a comparison per member rather than a rendering.
    private func smallestIfTooMany<Member>(_ members: [Member], room: Int, key: (Member) -> Any) -> [Member]? {
        let shown = room / 2 + 1
        guard members.count > shown, let first = members.first, let comparable = key(first) as? any Comparable
        else { return nil }
        return smallest(shown, of: members, by: key, as: comparable)
    }

    /// The `count` members with the smallest keys, in order, or `nil` when a key is not a `Key` or
    /// is not equal to itself.
    private func smallest<Member, Key: Comparable>(
        _ count: Int,
        of members: [Member],
        by key: (Member) -> Any,
        as _: Key
    ) -> [Member]? {
        var kept: [(key: Key, member: Member)] = []
        kept.reserveCapacity(count + 1)
        for member in members {
            // A key not equal to itself (a NaN) has no place in the order: render them all.
            guard let memberKey = key(member) as? Key, memberKey == memberKey else { return nil }
            if kept.count == count, let last = kept.last, !(memberKey < last.key) {
                continue
            }
            // Binary search for the first kept key greater than this one.
            var low = 0
            var high = kept.count
            while low < high {
                let middle = (low + high) / 2
                if memberKey < kept[middle].key {
                    high = middle
                } else {
                    low = middle + 1
                }
            }
            kept.insert((memberKey, member), at: low)
            if kept.count > count {
                kept.removeLast()
            }
        }
        return kept.map(\.member)
    }

    /// Writes `members` while they fit, keeping room for the count of those left out:
    /// `1, 2, …199,998 more` then `close`.
    private func writeFirst<Member>(
        _ members: [Member],
        of total: Int,
        close: String,
        to output: inout Output,
        _ writeMember: (Member, inout Output) -> Void
    ) {
        // Room for `, …`, the count of the others and the closing brackets.
        let reserve = 32
        var written = 0
        for member in members {
            // Rendered aside first: a member that would leave no room for the count is not shown.
            var piece = Output(limit: output.remaining)
            writeMember(member, &piece)
            guard !piece.isFull, piece.text.utf8.count + 2 + reserve <= output.remaining else { break }
            if written > 0 {
                output.append(", ")
            }
            output.append(piece.text)
            written += 1
        }
        output.append((written > 0 ? ", …" : "…") + "\(total - written) more" + close)
    }

    /// A set member or dictionary key rendered on its own, to be sorted, but inside the rendering
    /// of its container: with its depth and the objects already being rendered, so that a cycle
    /// through it ends in `Name(…)` and nesting in `…`.
    private func rendering(of value: Any, depth: Int, ancestors: inout [ObjectIdentifier]) -> String {
        var output = Output(limit: maxLength)
        write(value, depth: depth, to: &output, ancestors: &ancestors)
        return output.finished()
    }

    /// Strings and characters, quoted and escaped the way Swift writes them in source.
    private static func quoted(_ value: Any) -> String? {
        if let string = value as? String {
            return string.debugDescription
        }
        if let substring = value as? Substring {
            return substring.debugDescription
        }
        if let character = value as? Character {
            return character.debugDescription
        }
        return nil
    }
}
