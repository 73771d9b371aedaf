/** The CIMD test client: its client ID (an https URL the test Worker answers itself) and its redirect URI. */
export const CIMD_CLIENT_ID = "https://cimd-client.example/oauth/client.json";
export const CIMD_REDIRECT_URI = "http://127.0.0.1:8979/callback";
