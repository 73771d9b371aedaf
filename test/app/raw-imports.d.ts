/** A file imported as its text (`import text from "./file?raw"`): vite, which the test pool runs on, reads it so. */
declare module "*?raw" {
  const text: string;
  export default text;
}
