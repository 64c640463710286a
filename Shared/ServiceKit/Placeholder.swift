import Hummingbird
import ServiceLifecycle
import Prometheus
import Yams
public enum ServiceKitPlaceholder {}
