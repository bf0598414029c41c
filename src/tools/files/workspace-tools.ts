/**
 * The workspace's tools, in the order the model sees them: the six file tools (domain
 * `workspace`) and the three checkpoint tools (domain `checkpoints`). They use only
 * `context.workspace` and `context.taskId` (attach_file also `context.attach`).
 */
import type { Tool } from "../../loop/contracts.ts";
import { attachFileTool } from "./attach-file.ts";
import { checkpointCreateTool } from "./checkpoint-create.ts";
import { checkpointListTool } from "./checkpoint-list.ts";
import { checkpointRestoreTool } from "./checkpoint-restore.ts";
import { editFileTool } from "./edit-file.ts";
import { grepFilesTool } from "./grep-files.ts";
import { listFilesTool } from "./list-files.ts";
import { readFileTool } from "./read-file.ts";
import { writeFileTool } from "./write-file.ts";

/** read_file, write_file, edit_file, list_files, grep_files, attach_file and the checkpoint tools. */
export const WORKSPACE_TOOLS: Tool[] = [
  readFileTool,
  writeFileTool,
  editFileTool,
  listFilesTool,
  grepFilesTool,
  attachFileTool,
  checkpointCreateTool,
  checkpointListTool,
  checkpointRestoreTool,
];
