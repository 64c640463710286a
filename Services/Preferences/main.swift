// herald-preferences: decides for each resolved delivery whether the user wants it (network,
// user, channel, kind and device rules), and answers the gateway's preference commands.
import HeraldServices

await HeraldExecutable.preferences.main()
