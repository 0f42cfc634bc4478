{{/* Names and labels. */}}
{{- define "switchboard.name" -}}
{{- .Chart.Name | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{- define "switchboard.fullname" -}}
{{- if contains .Chart.Name .Release.Name -}}
{{- .Release.Name | trunc 63 | trimSuffix "-" -}}
{{- else -}}
{{- printf "%s-%s" .Release.Name .Chart.Name | trunc 63 | trimSuffix "-" -}}
{{- end -}}
{{- end -}}

{{- define "switchboard.selectorLabels" -}}
app.kubernetes.io/name: {{ include "switchboard.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end -}}

{{- define "switchboard.labels" -}}
{{ include "switchboard.selectorLabels" . }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" }}
{{- end -}}

{{/* PostgreSQL when a database URL is given in any form; SQLite otherwise. */}}
{{- define "switchboard.postgres" -}}
{{- if or .Values.database.url .Values.database.existingSecret -}}true{{- end -}}
{{- end -}}

{{/* The chart's own Secret is made only for values given inline. */}}
{{- define "switchboard.ownSecret" -}}
{{- if or (and .Values.database.url (not .Values.database.existingSecret)) (and .Values.secretKeys.value (not .Values.secretKeys.existingSecret)) -}}true{{- end -}}
{{- end -}}

{{- define "switchboard.baseURL" -}}
{{- if .Values.baseURL -}}
{{- .Values.baseURL -}}
{{- else if .Values.ingress.enabled -}}
{{- printf "%s://%s" (ternary "https" "http" (gt (len .Values.ingress.tls) 0)) .Values.ingress.host -}}
{{- end -}}
{{- end -}}

{{- define "switchboard.mcpURL" -}}
{{- if .Values.mcpURL -}}
{{- .Values.mcpURL -}}
{{- else if and .Values.ingress.enabled .Values.ingress.mcpHost -}}
{{- printf "%s://%s" (ternary "https" "http" (gt (len .Values.ingress.tls) 0)) .Values.ingress.mcpHost -}}
{{- end -}}
{{- end -}}

{{/*
Refuse set-ups that would lose data or lock credentials away, with a
message that says what to set.
*/}}
{{- define "switchboard.validate" -}}
{{- if include "switchboard.postgres" . -}}
{{- if not (or .Values.secretKeys.value .Values.secretKeys.existingSecret) -}}
{{- fail "secretKeys.value or secretKeys.existingSecret is required on PostgreSQL: every pod needs the same sealing key ring (make one with: echo \"k1:$(openssl rand -base64 32)\")" -}}
{{- end -}}
{{- else -}}
{{- if or (gt (int .Values.replicaCount) 1) .Values.autoscaling.enabled -}}
{{- fail "SQLite (no database.url or database.existingSecret) runs one pod: set replicaCount=1 and autoscaling.enabled=false, or give a PostgreSQL URL" -}}
{{- end -}}
{{- end -}}
{{- if and .Values.database.url (not (hasPrefix "postgres" .Values.database.url)) -}}
{{- fail "database.url must be a postgres:// URL; leave it empty for SQLite on a persistent volume" -}}
{{- end -}}
{{- end -}}

{{/* The environment of serve and migrate. */}}
{{- define "switchboard.env" -}}
- name: SWITCHBOARD_DATABASE_URL
{{- if .Values.database.existingSecret }}
  valueFrom:
    secretKeyRef:
      name: {{ .Values.database.existingSecret }}
      key: {{ .Values.database.existingSecretKey }}
{{- else if .Values.database.url }}
  valueFrom:
    secretKeyRef:
      name: {{ include "switchboard.fullname" . }}
      key: database-url
{{- else }}
  value: sqlite:/data/switchboard.db
{{- end }}
{{- if .Values.secretKeys.existingSecret }}
- name: SWITCHBOARD_SECRET_KEYS
  valueFrom:
    secretKeyRef:
      name: {{ .Values.secretKeys.existingSecret }}
      key: {{ .Values.secretKeys.existingSecretKey }}
{{- else if .Values.secretKeys.value }}
- name: SWITCHBOARD_SECRET_KEYS
  valueFrom:
    secretKeyRef:
      name: {{ include "switchboard.fullname" . }}
      key: secret-keys
{{- end }}
- name: SWITCHBOARD_SECRET_KEY_FILE
  value: /data/secret.key
- name: SWITCHBOARD_LOG_LEVEL
  value: {{ .Values.logLevel | quote }}
- name: SWITCHBOARD_LOG_FORMAT
  value: json
{{- end -}}
