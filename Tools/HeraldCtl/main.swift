// heraldctl: operate Herald from a terminal or a script (HeraldCtlCommands).
import HeraldCtlCommands

await HeraldCtlCommand.run()
