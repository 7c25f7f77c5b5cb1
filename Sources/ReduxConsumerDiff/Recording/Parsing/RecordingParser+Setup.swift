import ReduxConsumer

extension RecordingParser {
    /// Reads and checks the header on the first line.
    static func readHeader(lines: LineReader, document: JSONDocument, source: String) throws(ReplayError)
        -> RecordingHeader
    {
        func notARecording(_ reason: String) -> ReplayError {
            ReplayError(.notARecording(reason: reason), line: 1, source: source)
        }
        let outcome: LineReader.Outcome
        // A header is one short line: input whose first 64 KiB end no line is no recording, and is
        // not read on (it may never end, as `/dev/zero`).
        lines.maximumLineLength = 64 * 1024
        defer { lines.maximumLineLength = LineReader.defaultMaximumLineLength }
        do {
            outcome = try lines.next(into: &document.bytes)
        } catch {
            if error.isTooLong {
                throw notARecording("its first line is longer than 64 KiB (a recording begins with a one-line header)")
            }
            throw ReplayError(.unreadable(reason: error.message), line: 1, source: source)
        }
        if outcome == .endOfInput {
            throw notARecording("it is empty")
        }
        do {
            try document.parse()
        } catch {
            if document.bytes.starts(with: [0xEF, 0xBB, 0xBF]) {
                throw notARecording(
                    "it begins with a byte order mark (EF BB BF) before its header: save it as UTF-8 without one")
            }
            throw notARecording("its first line is not JSON")
        }
        // A string may come escaped (a hash name with a quote in it is written so): read either kind.
        func isString(_ node: Int) -> Bool {
            document.nodes[node].kind == .string || document.nodes[node].kind == .escapedString
        }
        guard document.nodes[0].kind == .object,
            let marker = document.member(of: 0, named: "recording"),
            isString(marker),
            document.string(at: marker) == RecordingFormat.marker
        else {
            throw notARecording(
                "its first line is not a recording header (\"recording\":\"\(RecordingFormat.marker)\")")
        }
        if outcome == .unterminated {
            throw ReplayError(.truncated(reason: "the recording ends in its header line"), line: 1, source: source)
        }
        func text(_ name: String) -> String? {
            guard let node = document.member(of: 0, named: name), isString(node) else {
                return nil
            }
            return document.string(at: node)
        }
        guard let format = text("format") else {
            throw ReplayError(.corruptedLine(reason: "the header has no \"format\" version"), line: 1, source: source)
        }
        let parts = format.split(separator: ".", omittingEmptySubsequences: false)
        // Digits only: `Int` alone would take a sign, and "-1.0" is no version.
        let isNumber = { (part: Substring) in
            part.utf8.allSatisfy { $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }
        }
        guard parts.count == 2, parts.allSatisfy(isNumber), let major = Int(parts[0]), Int(parts[1]) != nil else {
            throw ReplayError(
                .corruptedLine(reason: "the format version \"\(format)\" is not major.minor"), line: 1, source: source)
        }
        let supportedMajor = Int(RecordingHeader.currentFormatVersion.split(separator: ".")[0]) ?? 1
        guard major <= supportedMajor else {
            throw ReplayError(.newerFormat(found: format, supported: "\(supportedMajor).x"), line: 1, source: source)
        }
        var interval: Int?
        if let node = document.member(of: 0, named: "snapshotInterval") {
            // A recorder writes a positive whole number, or no member at all.
            guard let value = document.integer(at: node, as: Int.self), value > 0 else {
                throw ReplayError(
                    .corruptedLine(reason: "the header's \"snapshotInterval\" is not a positive whole number"), line: 1,
                    source: source)
            }
            interval = value
        }
        return RecordingHeader(
            formatVersion: format,
            libraryVersion: text("library") ?? "unknown",
            hashName: text("hash"),
            snapshotInterval: interval
        )
    }
}
