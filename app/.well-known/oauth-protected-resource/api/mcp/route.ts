export { GET } from "../../route";
