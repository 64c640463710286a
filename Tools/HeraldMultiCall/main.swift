// herald: every Herald service in one binary, for the image and the scripts. Run as the name
// it is linked as (`herald-gateway` → herald) or as `herald <name> [arguments]`; `herald
// links <folder>` makes a link per executable there, `herald providers --manifest` prints what
// a deployment consists of (HeraldManifest).
import Foundation
import HeraldCtlCommands
import HeraldServices

let arguments = CommandLine.arguments
let calledAs = URL(fileURLWithPath: arguments.first ?? "herald").lastPathComponent
let (name, rest) = calledAs == "herald" && arguments.count > 1
    ? (arguments[1], Array(arguments.dropFirst(2)))
    : (calledAs, Array(arguments.dropFirst()))
let names = HeraldExecutable.all.map(\.name) + ["heraldctl"]

func fail(_ message: String, status: Int32 = 64) -> Never {
    FileHandle.standardError.write(Data("herald: \(message)\n".utf8))
    exit(status)
}

if let executable = HeraldExecutable.named(name) {
    await executable.main()
} else if name == "heraldctl" {
    await HeraldCtlCommand.run(arguments: rest)
} else if name == "providers", rest == ["--manifest"] {
    do { print(try HeraldManifest.text(), terminator: "") } catch { fail("cannot write the manifest: \(error)", status: 1) }
} else if name == "links", rest.count == 1 {
    // A link named as each executable, beside or anywhere (the image's /usr/local/bin).
    let folder = URL(fileURLWithPath: rest[0])
    let target = URL(fileURLWithPath: arguments[0]).resolvingSymlinksInPath()
    for link in names.map({ folder.appendingPathComponent($0) }) {
        try? FileManager.default.removeItem(at: link)
        do {
            let relative = target.deletingLastPathComponent().standardizedFileURL == folder.standardizedFileURL
            try FileManager.default.createSymbolicLink(atPath: link.path, withDestinationPath: relative ? target.lastPathComponent : target.path)
        } catch { fail("cannot link \(link.path): \(error)", status: 1) }
    }
} else if name == "--help" || name == "-h" || name == "herald" {
    var help = "herald: every Herald service in one binary. Run it as a link named as the service, or as `herald <name>`:\n"
    for executable in HeraldExecutable.all { help += "  \(executable.name.padding(toLength: 20, withPad: " ", startingAt: 0)) \(executable.summary)\n" }
    help += "  heraldctl            the operator's command line (`herald heraldctl --help`)\n"
    help += "herald links <folder>         a link per executable in <folder>\n"
    help += "herald providers --manifest   the executables, ports, queues and providers as JSON\n"
    print(help, terminator: "")
} else {
    fail("no executable named \"\(name)\"; run one of \(names.joined(separator: ", ")) (as a link named so, or as `herald <name>`)")
}
