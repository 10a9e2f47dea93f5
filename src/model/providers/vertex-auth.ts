import { existsSync, readFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import type { GoogleAuth } from "google-auth-library";
import { ProviderSetupError } from "./credential-helpers.js";
import { PROVIDER_PACKAGE, requireBeside } from "./provider-packages.js";

type Env = Readonly<Record<string, string | undefined>>;
type GoogleAuthLibrary = typeof import("google-auth-library");

const SCOPES = "https://www.googleapis.com/auth/cloud-platform";

/** Google's sign-in for Vertex AI, and the project its requests name. */
export interface VertexAuth {
  readonly googleAuth: GoogleAuth;
  readonly projectId: string | null;
}

const NO_CREDENTIALS =
  "has no credentials to use: run `gcloud auth application-default login` or set GOOGLE_APPLICATION_CREDENTIALS to a key file; on Google Cloud, METADATA_SERVER_DETECTION=ping-only uses its metadata server; CLAUDE_CODE_SKIP_VERTEX_AUTH=1 behind a gateway that signs";

/**
 * Google's application default credentials as the user has them, asked of the metadata server only
 * when they can come from nowhere else: a key file (GOOGLE_APPLICATION_CREDENTIALS, from the
 * environment or the user's settings) or gcloud's application default login is used as it is, and
 * the metadata server is never asked, not even for the project; with neither, the metadata server is
 * asked only on Google Cloud (or when METADATA_SERVER_DETECTION says so), and anywhere else it is
 * one line saying what to set, with no request to it and none of its lookup warnings.
 */
export function vertexAuth(env: Env, projectId: string | undefined): VertexAuth {
  const g = requireBeside<GoogleAuthLibrary>(PROVIDER_PACKAGE.vertex, "google-auth-library");
  const file = credentialsFile(env);
  if (file) {
    if (!existsSync(file))
      throw new ProviderSetupError(
        `has no credentials to use: GOOGLE_APPLICATION_CREDENTIALS names ${file}, which does not exist`,
      );
    const project = projectId ?? projectOf(env, file);
    if (!project)
      throw new ProviderSetupError(
        `needs a project: set ANTHROPIC_VERTEX_PROJECT_ID (the credentials in ${file} name none)`,
      );
    return {
      googleAuth: new g.GoogleAuth({ scopes: SCOPES, keyFilename: file, projectId: project }),
      projectId: project,
    };
  }
  // METADATA_SERVER_DETECTION, when set, says whether there is a metadata server (`none`: there is not).
  const detection = env.METADATA_SERVER_DETECTION?.trim().toLowerCase();
  const onGoogleCloud = detection ? detection !== "none" : g.gcpMetadata.getGCPResidency();
  if (!onGoogleCloud) throw new ProviderSetupError(NO_CREDENTIALS);
  const project = projectId ?? projectOf(env, undefined);
  return {
    googleAuth: new g.GoogleAuth({ scopes: SCOPES, ...(project && { projectId: project }) }),
    projectId: project ?? null,
  };
}

/** The credentials file Google's default chain would read: the variable's, else gcloud's login. */
function credentialsFile(env: Env): string | undefined {
  const named = env.GOOGLE_APPLICATION_CREDENTIALS?.trim();
  if (named) return named;
  const home = env.HOME || os.homedir();
  const config =
    env.CLOUDSDK_CONFIG?.trim() ||
    (process.platform === "win32" && env.APPDATA
      ? path.join(env.APPDATA, "gcloud")
      : path.join(home, ".config", "gcloud"));
  const login = path.join(config, "application_default_credentials.json");
  return existsSync(login) ? login : undefined;
}

/** The project the environment or the credentials file names, as Google's libraries read it. */
function projectOf(env: Env, file: string | undefined): string | undefined {
  const set = env.GOOGLE_CLOUD_PROJECT?.trim() || env.GCLOUD_PROJECT?.trim();
  if (set) return set;
  if (!file) return undefined;
  try {
    const json = JSON.parse(readFileSync(file, "utf8")) as Record<string, unknown>;
    const id = json.project_id ?? json.quota_project_id;
    return typeof id === "string" && id ? id : undefined;
  } catch {
    return undefined;
  }
}
