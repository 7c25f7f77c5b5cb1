import ReduxConsumer

#if canImport(Darwin)
    import Darwin
#elseif canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Android)
    import Android
#endif

/// Reading, parsing and checking lines: the part of the parser that knows the format.
extension RecordingParser {
    /// What one line of a recording holds.
    enum Line {
        case action(index: Int, content: ParsedStep.Content, hash: UInt64?)
        case snapshot(index: Int, node: Int)
        case end(count: Int, failure: String?)
    }

    /// Makes the line read ahead current; `true` if there was one. Throws the first error met, if
    /// any, again and again.
    func takeLookahead() throws(ReplayError) -> Bool {
        if hasFailed, let failure {
            throw failure
        }
        guard lookaheadLine != nil else { return false }
        lookaheadLine = nil
        return true
    }

    /// The line just taken from the look-ahead, classified: as it was when read ahead, or now.
    func classifyLookahead() throws(ReplayError) -> Line {
        if hasClassifiedLookahead, let line = classifiedLookahead {
            classifiedLookahead = nil
            return line
        }
        return try classifyLine()
    }

    /// Reads the next line into the document, unparsed; `false` at the end of the input.
    func readLine() throws(ReplayError) -> Bool {
        let outcome: LineReader.Outcome
        do {
            outcome = try lines.next(into: &document.bytes)
        } catch {
            if error.isTooLong {
                let limit = lines.maximumLineLength
                throw self.error(
                    .corruptedLine(reason: "the line is longer than \(limit) bytes, the most a reader reads"),
                    line: lines.lineNumber + 1)
            }
            throw self.error(.unreadable(reason: error.message), line: lines.lineNumber + 1)
        }
        switch outcome {
        case .endOfInput:
            return false
        case .unterminated:
            throw error(
                .truncated(reason: "the last line is cut short (it does not end with a newline)"),
                line: lines.lineNumber)
        case .line:
            return true
        }
    }

    /// Parses the whole line into the document.
    func parseLine() throws(ReplayError) {
        do {
            try document.parse()
        } catch {
            throw self.error(.notJSON(column: error.offset + 1, reason: error.message), line: lines.lineNumber)
        }
    }

    /// Reads the line after action `index`: returns its snapshot when it is one, in any layout,
    /// otherwise keeps the line (or the error it caused) for the next call.
    func snapshotFollowing(_ index: Int) -> ParsedStep.Snapshot? {
        let offset = lines.offset
        do {
            guard try readLine() else { return nil }
            // An action line as the recorder writes it stays raw for `next()`'s fast scanner; any
            // other line may be a snapshot, so it is classified here, and kept so as to be parsed once.
            if !ActionLineScanner.startsAction(document.bytes) {
                let line = try classifyLine()
                if case .snapshot(index, let node) = line {
                    hasSnapshot = true
                    return try decodeSnapshot(at: node).map(ParsedStep.Snapshot.init)
                }
                classifiedLookahead = line
            }
            lookaheadLine = (lines.lineNumber, offset)
        } catch {
            failure = error
        }
        return nil
    }

    func classifyLine() throws(ReplayError) -> Line {
        if let action = try scanActionLine() {
            return action
        }
        try parseLine()
        let line = lines.lineNumber
        guard document.nodes[0].kind == .object else {
            throw error(
                .corruptedLine(reason: "expected a JSON object, found \(document.kindDescription(at: 0))"), line: line)
        }
        if let indexNode = document.member(of: 0, named: "index") {
            return try classifyAction(indexNode: indexNode, line: line)
        }
        if let snapshotNode = document.member(of: 0, named: "snapshot") {
            let index = try integer(snapshotNode, named: "snapshot", line: line)
            guard let state = document.member(of: 0, named: "state") else {
                throw error(.corruptedLine(reason: "a snapshot line needs a \"state\" member"), line: line)
            }
            return .snapshot(index: index, node: state)
        }
        if let endNode = document.member(of: 0, named: "end") {
            let count = try integer(endNode, named: "end", line: line)
            let failure = try document.member(of: 0, named: "error").map { (node) throws(ReplayError) in
                try string(node, named: "error", line: line)
            }
            return .end(count: count, failure: failure)
        }
        if document.member(of: 0, named: "recording") != nil {
            throw error(.corruptedLine(reason: "a second header: two recordings were joined"), line: line)
        }
        throw error(.corruptedLine(reason: "expected an action, a snapshot or the end line"), line: line)
    }

    func classifyAction(indexNode: Int, line: Int) throws(ReplayError) -> Line {
        let index = try integer(indexNode, named: "index", line: line)
        guard index == lastIndex + 1 else {
            let reason =
                index <= lastIndex
                ? "action \(index) comes after action \(lastIndex): lines are repeated or out of order"
                : "action \(index) follows action \(lastIndex): actions \(lastIndex + 1)…\(index - 1) are missing"
            throw error(.corruptedLine(reason: reason), line: line)
        }
        var hash: UInt64?
        if let hashNode = document.member(of: 0, named: "hash") {
            let text = try string(hashNode, named: "hash", line: line)
            // Digits only: `UInt64(_:radix:)` alone would take a sign.
            guard text.utf8.count == 16, text.utf8.allSatisfy({ hexDigit($0) != nil }),
                let value = UInt64(text, radix: 16)
            else {
                throw error(
                    .corruptedLine(reason: "\"hash\" must be 16 hexadecimal digits, found \"\(text)\""), line: line)
            }
            hash = value
        }
        if let typeNode = document.member(of: 0, named: "type") {
            let name = try string(typeNode, named: "type", line: line)
            guard let codec = codecs.codec(named: name) else {
                throw error(.unknownActionType(name), line: line)
            }
            guard let payload = document.member(of: 0, named: "action") else {
                throw error(.corruptedLine(reason: "an action line needs an \"action\" member"), line: line)
            }
            return .action(index: index, content: .action(try decode(payload, with: codec, line: line)), hash: hash)
        }
        if let skippedNode = document.member(of: 0, named: "skipped") {
            let actionType = try string(skippedNode, named: "skipped", line: line)
            return .action(index: index, content: .skipped(actionType: actionType), hash: hash)
        }
        throw error(.corruptedLine(reason: "an action line needs a \"type\" or \"skipped\" member"), line: line)
    }

    /// Decodes the action payload at `node` with `codec`.
    func decode(_ node: Int, with codec: ActionCodecs.Codec, line: Int) throws(ReplayError) -> any Action {
        document.pathRoot = node
        do {
            return try codec.decode(document, node)
        } catch {
            throw self.error(.undecodableAction(type: codec.name, reason: describe(error)), line: line)
        }
    }

    /// Reads an action line in the layout the recorder writes, without parsing its envelope as a
    /// whole: `{"index":N,"type":"NAME","action":PAYLOAD,"hash":"…"}`. Returns `nil` when the line
    /// is laid out in any other way, and the general path then parses it (and finds its errors).
    func scanActionLine() throws(ReplayError) -> Line? {
        guard let prefix = ActionLineScanner.scanPrefix(document.bytes) else { return nil }
        if let known = reusedAction(prefix) {
            return known
        }
        let payloadEnd: Int
        do {
            payloadEnd = try document.parseValue(startingAt: prefix.payloadStart)
        } catch {
            return nil
        }
        guard let suffix = ActionLineScanner.scanSuffix(document.bytes, from: payloadEnd) else { return nil }
        let line = lines.lineNumber
        guard prefix.index == lastIndex + 1 else { return nil }
        // No codec by that name: the general path names it, or finds that it is no JSON string.
        guard let codec = codec(named: prefix.name) else { return nil }
        let action = try decode(0, with: codec, line: line)
        decodedPayloads.keep(action, decodedBy: codec, from: document.bytes, in: prefix.payloadStart..<payloadEnd)
        return .action(index: prefix.index, content: .action(action), hash: suffix.hash)
    }

    /// The action line when its payload is one decoded before (see ``DecodedPayloads``), without
    /// parsing or decoding it; `nil` otherwise, and the line is then read as usual.
    ///
    /// The payload is taken to end where a valid suffix starts, counted from the end of the line
    /// (`,"hash":"…"}` or `}`). When those bytes are a payload kept before, they are one complete
    /// JSON value, so parsing the line would have found the same payload and suffix.
    private func reusedAction(_ prefix: ActionLineScanner.Prefix) -> Line? {
        guard prefix.index == lastIndex + 1 else { return nil }
        let bytes = document.bytes
        let hashedLength = 27  // ,"hash":"0123456789abcdef"}
        var payloadEnd = bytes.count - hashedLength
        var suffix = payloadEnd >= prefix.payloadStart ? ActionLineScanner.scanSuffix(bytes, from: payloadEnd) : nil
        if suffix == nil {
            payloadEnd = bytes.count - 1
            guard payloadEnd >= prefix.payloadStart else { return nil }
            suffix = ActionLineScanner.scanSuffix(bytes, from: payloadEnd)
        }
        guard let suffix,
            let action = decodedPayloads.action(
                named: prefix.name, payload: prefix.payloadStart..<payloadEnd, in: bytes)
        else { return nil }
        return .action(index: prefix.index, content: .action(action), hash: suffix.hash)
    }

    /// The codec registered under the name at `range` of the line, or `nil`; the last one found
    /// is checked first, without making a string.
    func codec(named range: Range<Int>) -> ActionCodecs.Codec? {
        if let lastCodec, lastCodec.nameBytes.count == range.count,
            lastCodec.nameBytes.withUnsafeBufferPointer({ name in
                document.bytes.withUnsafeBufferPointer { line in
                    memcmp(name.baseAddress!, line.baseAddress! + range.lowerBound, range.count) == 0
                }
            })
        {
            return lastCodec
        }
        let name = String(decoding: document.bytes[range], as: UTF8.self)
        guard let codec = codecs.codec(named: name) else { return nil }
        lastCodec = codec
        return codec
    }

    func decodeSnapshot(at node: Int) throws(ReplayError) -> Any? {
        guard let decodeState else { return nil }
        document.pathRoot = node
        do {
            return try decodeState(document, node)
        } catch {
            throw self.error(.undecodableState(reason: describe(error)), line: lines.lineNumber)
        }
    }

    func integer(_ node: Int, named name: String, line: Int) throws(ReplayError) -> Int {
        guard let value = document.integer(at: node, as: Int.self), value >= 0 else {
            throw error(.corruptedLine(reason: "\"\(name)\" must be a non-negative integer"), line: line)
        }
        return value
    }

    func string(_ node: Int, named name: String, line: Int) throws(ReplayError) -> String {
        let kind = document.nodes[node].kind
        guard kind == .string || kind == .escapedString else {
            throw error(
                .corruptedLine(reason: "\"\(name)\" must be a string, found \(document.kindDescription(at: node))"),
                line: line)
        }
        return document.string(at: node)
    }

    func error(_ kind: ReplayError.Kind, line: Int) -> ReplayError {
        ReplayError(kind, line: line, source: source)
    }
}
