/** The types of clients.mjs's exports (the script is plain Node, run as it is, so its types live here). */

/** The pinned requirements the environment is made from. */
export declare const REQUIREMENTS: string;
/** The virtual environment of the Python clients (.tools/python-clients/, ignored by git). */
export declare const VENV: string;
/** The environment's python: the one the end-to-end tests run the client scripts with. */
export declare const VENV_PYTHON: string;
/** The command that makes the environment: `npm run clients:python`. */
export declare const INSTALL_COMMAND: string;
/** Whether the environment is there and holds exactly the requirements. */
export declare function pythonClientsInstalled(): boolean;
