{{/* The services, their executables and ports (as compose.yaml runs them). */}}
{{- define "herald.services" -}}
gateway: { executable: herald-gateway, port: 8080, opsPort: 9080, stateful: false, dispatcher: false, queue: "" }
registration: { executable: herald-registration, port: 8081, opsPort: 8081, stateful: true, dispatcher: false, queue: "" }
preferences: { executable: herald-preferences, port: 8082, opsPort: 8082, stateful: true, dispatcher: false, queue: "" }
encryption: { executable: herald-encryption, port: 8083, opsPort: 8083, stateful: false, dispatcher: false, queue: "" }
fcm: { executable: herald-fcm, port: 8084, opsPort: 8084, stateful: false, dispatcher: true, queue: dispatch.fcm }
hms: { executable: herald-hms, port: 8085, opsPort: 8085, stateful: false, dispatcher: true, queue: dispatch.hms }
webhook: { executable: herald-webhook, port: 8086, opsPort: 8086, stateful: false, dispatcher: true, queue: dispatch.webhook }
apns: { executable: herald-apns, port: 8087, opsPort: 8087, stateful: false, dispatcher: true, queue: dispatch.apns }
callback: { executable: herald-callback, port: 8088, opsPort: 8088, stateful: false, dispatcher: true, queue: dispatch.callback }
{{- end -}}

{{- define "herald.fullname" -}}
{{- if contains .Chart.Name .Release.Name -}}{{ .Release.Name | trunc 50 | trimSuffix "-" }}{{- else -}}{{ printf "%s-%s" .Release.Name .Chart.Name | trunc 50 | trimSuffix "-" }}{{- end -}}
{{- end -}}

{{- define "herald.labels" -}}
app.kubernetes.io/name: herald
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version }}
{{- end -}}

{{- define "herald.selector" -}}
app.kubernetes.io/name: herald
app.kubernetes.io/instance: {{ .root.Release.Name }}
app.kubernetes.io/component: {{ .name }}
{{- end -}}

{{/* The Secret that holds the files of /etc/herald/secrets. */}}
{{- define "herald.secretName" -}}
{{- if .Values.secrets.existingSecret -}}{{ .Values.secrets.existingSecret }}{{- else -}}{{ include "herald.fullname" . }}-secrets{{- end -}}
{{- end -}}
