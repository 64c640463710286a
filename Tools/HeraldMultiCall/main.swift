// herald: every Herald executable in one binary, for the image. Run as the name it is linked
// as (`herald-gateway` → herald), or as `herald <name> [arguments]`.
import Foundation
import HeraldCtlCommands
import HeraldServices

let arguments = CommandLine.arguments
let calledAs = URL(fileURLWithPath: arguments.first ?? "herald").lastPathComponent
let (name, rest) = calledAs == "herald" && arguments.count > 1
    ? (arguments[1], Array(arguments.dropFirst(2)))
    : (calledAs, Array(arguments.dropFirst()))
if let executable = HeraldExecutable(rawValue: name) {
    await executable.main()
} else if name == "heraldctl" {
    await HeraldCtlCommand.run(arguments: rest)
} else {
    let names = HeraldExecutable.allCases.map(\.rawValue) + ["heraldctl"]
    FileHandle.standardError.write(Data("herald: no executable named \"\(name)\"; run one of \(names.joined(separator: ", ")) (as a link named so, or as `herald <name>`)\n".utf8))
    exit(64)
}
